import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { svcCli } from './helpers/cli';
import { greet } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/** `svc runs list|show|cancel` (API.md §10, §12) against the real stack. */

const UI = 'http://temporal-ui.example.test:8233';
let stack: TestStack;
let key: string;
let workspaceId: string;
let dataDir: string;
// No stack.json: the suite's servers come from the environment, the UI address from TEMPORAL_UI_URL.
const svc = (...args: string[]) => svcCli(args, { DATA_DIR: dataDir, TEMPORAL_UI_URL: `${UI}/` });

beforeAll(async () => {
  stack = await startStack();
  ({ key, workspaceId } = await stack.tenant());
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-runs-'));
});
afterAll(async () => {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startRun(workflowId: string): Promise<any> {
  const r = await stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body: { input: { name: 'Ada' }, wait: true } });
  expect(r.status).toBe(201);
  return r.body;
}

const reviewFlow = {
  name: 'Approve',
  slug: 'approve',
  steps: [
    { key: 'prepare', type: 'transform', expression: "'ready'" },
    { key: 'check', type: 'review', title: 'Check it', assignees: ['ops@example.test'] },
  ],
};

describe('svc runs', () => {
  it('lists a workspace’s runs newest first, by workflow and status', async () => {
    const wf = await stack.apply(workspaceId, greet);
    const first = await startRun(wf.id);
    const second = await startRun(wf.id);
    expect([first.status, second.status]).toEqual(['succeeded', 'succeeded']);

    const all = await svc('runs', 'list', '--workspace', workspaceId, '--workflow', wf.id, '--json');
    expect(all.code).toBe(0);
    expect(all.json().data.map((r: any) => [r.id, r.status])).toEqual([
      [second.id, 'succeeded'],
      [first.id, 'succeeded'],
    ]);
    const failed = await svc('runs', 'list', '--workspace', workspaceId, '--status', 'failed', '--json');
    expect(failed.json().data).toEqual([]);
    const human = await svc('runs', 'list', '--workspace', workspaceId, '--limit', '1');
    expect(human.stdout.split('\n')[0]).toMatch(/^ID +WORKFLOW_ID +STATUS +CREATED_AT +DURATION_MS$/);
    expect(human.stdout).toContain(`${second.id}  ${wf.id}  succeeded`);
    expect(human.stdout).not.toContain(first.id);

    const unknown = await svc('runs', 'list', '--workspace', workspaceId, '--workflow', 'wf_nope');
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('(workflow_not_found)')]);
    const other = await stack.tenant();
    const foreign = await svc('runs', 'list', '--workspace', other.workspaceId, '--workflow', wf.id);
    expect(foreign.stderr).toContain('(workflow_not_found)');
    const badStatus = await svc('runs', 'list', '--workspace', workspaceId, '--status', 'done');
    expect(badStatus.code).not.toBe(0);
    expect(badStatus.stderr).toContain('Allowed choices are queued, running, waiting_for_review, succeeded, failed, cancelled');
  });

  it('shows the steps, the review, the Temporal workflow id and the Temporal UI link', async () => {
    const wf = await stack.apply(workspaceId, reviewFlow);
    const run = await startRun(wf.id);
    expect(run.status).toBe('waiting_for_review');
    const temporalId = (await stack.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } })).temporalWorkflowId;
    const link = `${UI}/namespaces/default/workflows/${temporalId}`;

    const shown = await svc('runs', 'show', run.id, '--json');
    expect(shown.code).toBe(0);
    const body = shown.json();
    expect(body.steps.map((s: any) => [s.key, s.type, s.status, s.attempts])).toEqual([
      ['prepare', 'transform', 'succeeded', 1],
      ['check', 'review', 'waiting_for_review', 1],
    ]);
    expect(body.review).toMatchObject({ id: run.review.id, status: 'pending', title: 'Check it' });
    expect(body.temporal).toEqual({ workflow_id: temporalId, namespace: 'default', ui_url: link });
    // The link names a real execution: Temporal knows this workflow id.
    expect((await stack.temporal.workflow.getHandle(temporalId).describe()).status.name).toBe('RUNNING');

    const human = (await svc('runs', 'show', run.id)).stdout;
    expect(human).toContain(`run ${run.id} waiting_for_review`);
    expect(human).toContain(`temporal workflow: ${temporalId} (namespace default)`);
    expect(human).toContain(`temporal ui: ${link}\n`);
    expect(human).toMatch(/^KEY +TYPE +STATUS +ATTEMPTS +DURATION_MS$/m);
    expect(human).toMatch(/^prepare +transform +succeeded +1 +\d+$/m);
    expect(human).toMatch(/^check +review +waiting_for_review +1/m);
    expect(human).toContain(`review ${run.review.id} (step check) pending: Check it`);

    const missing = await svc('runs', 'show', 'run_nope');
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'error: Run run_nope not found (run_not_found)']);
  });

  it('cancels through the run’s workflow, and refuses truthfully what cannot be cancelled', async () => {
    const wf = await stack.apply(workspaceId, { ...reviewFlow, slug: 'approve-cancel' });
    const run = await startRun(wf.id);
    expect(run.status).toBe('waiting_for_review');

    const cancelled = await svc('runs', 'cancel', run.id);
    expect([cancelled.code, cancelled.stdout]).toEqual([0, `run ${run.id} cancelled\n`]);
    const read = await stack.api('GET', `/api/v1/runs/${run.id}`, { key });
    expect([read.body.status, read.body.review.status]).toEqual(['cancelled', 'cancelled']);
    expect(await stack.temporal.workflow.getHandle(run.id).result()).toEqual({ status: 'cancelled' });
    const again = await svc('runs', 'cancel', run.id, '--json');
    expect([again.code, again.json().status]).toEqual([0, 'cancelled']);

    const done = await startRun((await stack.apply(workspaceId, { ...greet, slug: 'greet-done' })).id);
    const refused = await svc('runs', 'cancel', done.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'error: Only queued runs and runs waiting for review can be cancelled; this run is succeeded (run_not_cancellable)',
    );
    const refusedJson = await svc('runs', 'cancel', done.id, '--json');
    expect(JSON.parse(refusedJson.stderr).error.code).toBe('run_not_cancellable');
    expect((await stack.api('GET', `/api/v1/runs/${done.id}`, { key })).body.status).toBe('succeeded');
  });
});
