// Replays every recorded history (test/replay/histories, see README.md) against the CURRENT
// workflow code: a change that alters the commands a recorded run made fails here.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { quietTemporalLogs } from '../helpers/stack';
import { bundleWorkflows } from '../helpers/workflowBundle';
import { readHistory } from './historyFile';

const ROOT = path.resolve(__dirname, '..', '..');
const HISTORIES = path.join(__dirname, 'histories');
const SHAPES = [
  'cancel-queued',
  'condition-jump',
  'delivery-queued',
  'delivery',
  'http-retries',
  'queued-continued-as-new',
  'queued-granted',
  'review-approved',
  'review-expired',
  'transform',
];
const history = (shape: string) => readHistory(path.join(HISTORIES, `${shape}.json`));

const bundle = async (workflowsPath: string) => ({ workflowBundle: { code: await bundleWorkflows(workflowsPath) } });
const replay = async (workflowsPath: string, shape: string) => Worker.runReplayHistory(await bundle(workflowsPath), history(shape), shape);

let current: Awaited<ReturnType<typeof bundle>>;
beforeAll(async () => {
  quietTemporalLogs();
  current = await bundle(path.join(ROOT, 'temporal/workflows/index.ts'));
});

describe('recorded histories', () => {
  it('cover every run shape, and nothing else', () => {
    expect(readdirSync(HISTORIES).sort()).toEqual(SHAPES.map((s) => `${s}.json`));
  });

  it.each(SHAPES)('%s replays against the current workflow code', async (shape) => {
    await expect(Worker.runReplayHistory(current, history(shape), shape)).resolves.toBeUndefined();
  });
});

describe('the replay check', () => {
  it('fails on a change that alters the order of commands', async () => {
    await expect(replay(path.join(__dirname, 'fixtures/timerFirst.ts'), 'transform')).rejects.toBeInstanceOf(DeterminismViolationError);
  });

  it('passes the same change made behind patched()', async () => {
    await expect(replay(path.join(__dirname, 'fixtures/patchedTimerFirst.ts'), 'transform')).resolves.toBeUndefined();
  });
});
