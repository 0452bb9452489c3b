import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { svcCli, svcCliLive } from './helpers/cli';
import { greet, waitFor } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/** `svc runs list|show|cancel|start|watch` against the real stack. */

const UI = 'http://temporal-ui.example.test:8233';
let stack: TestStack;
let key: string;
let workspaceId: string;
let dataDir: string;
// No stack.json: the suite's servers come from the environment, the UI address from TEMPORAL_UI_URL,
// and the task queue is this suite's worker's.
const cliEnv = () => ({ DATA_DIR: dataDir, TEMPORAL_UI_URL: `${UI}/`, TEMPORAL_TASK_QUEUE: stack.taskQueue });
const svc = (...args: string[]) => svcCli(args, cliEnv());

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

describe('svc runs start and watch', () => {
  it('starts a run with --input JSON and waits for it: exit 0 with the run as it settled', async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-start' });
    const r = await svc('runs', 'start', wf.id, '--input', '{"name": "Ada"}', '--wait', '--json');
    expect([r.code, r.stderr]).toEqual([0, '']);
    const run = r.json();
    expect(run).toMatchObject({ workflow_id: wf.id, status: 'succeeded', output: { greeting: 'hello Ada' }, replayed: false });
    expect((await stack.api('GET', `/api/v1/runs/${run.id}`, { key })).body).toMatchObject({ status: 'succeeded', trigger: 'api' });

    const human = await svc('runs', 'start', wf.id, '--input', '{"name": "Bo"}', '--wait');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^run run_\w+ succeeded\noutput: \{"greeting":"hello Bo"\}\n$/);
  });

  it('reads --input from @file; one run per --idempotency-key, a different body under it refused', async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-keyed' });
    const input = path.join(dataDir, 'input.json');
    writeFileSync(input, JSON.stringify({ name: 'Cy' }));
    const first = await svc('runs', 'start', wf.id, '--input', `@${input}`, '--idempotency-key', 'order-1001', '--json');
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ replayed: false, input: { name: 'Cy' } });
    const again = await svc('runs', 'start', wf.id, '--input', `@${input}`, '--idempotency-key', 'order-1001', '--json');
    expect(again.json()).toMatchObject({ id: first.json().id, replayed: true });
    const other = await svc('runs', 'start', wf.id, '--input', '{"name": "Di"}', '--idempotency-key', 'order-1001');
    expect([other.code, other.stderr]).toEqual([1, expect.stringContaining('(idempotency_key_reused)')]);
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(1);

    const invalid = await svc('runs', 'start', wf.id, '--input', '{"nom": "x"}');
    expect([invalid.code, invalid.stderr]).toEqual([1, expect.stringContaining('(validation_failed)')]);
    const unknown = await svc('runs', 'start', 'wf_nope', '--input', '{}');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'error: Workflow wf_nope not found (workflow_not_found)']);
  });

  it('--wait exits 1 for a run that failed, with the run and its error', async () => {
    const wf = await stack.apply(workspaceId, {
      name: 'Boom',
      slug: 'boom',
      steps: [{ key: 'boom', type: 'transform', expression: "$error('no')" }],
    });
    const r = await svc('runs', 'start', wf.id, '--input', '{}', '--wait', '--json');
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({ status: 'failed', error: { step_key: 'boom' } });
  });

  it('watch follows a run through each change until it settles: exit 0 when it succeeded', async () => {
    const wf = await stack.apply(workspaceId, { ...reviewFlow, slug: 'approve-watch' });
    const started = await svc('runs', 'start', wf.id, '--input', '{}', '--json');
    const run = started.json();
    const watch = svcCliLive(['runs', 'watch', run.id], cliEnv());
    // One read's lines may reach the pipe in separate chunks: wait for both.
    const prepared = / step prepare succeeded \(attempt 1, \d+ ms\)\n/;
    await waitFor(
      async () => watch.stdout(),
      (out) => out.includes(' run waiting_for_review\n') && prepared.test(out),
    );
    const review = await stack.db.prisma.review.findFirstOrThrow({ where: { runId: run.id } });
    expect((await svc('reviews', 'decide', review.id, '--approve')).code).toBe(0);

    const done = await watch.done;
    expect([done.code, done.stderr]).toEqual([0, '']);
    const lines = done.stdout.trimEnd().split('\n');
    expect(lines.slice(-4)).toEqual([
      expect.stringMatching(/ step check succeeded \(attempt 1, \d+ ms\)$/),
      expect.stringMatching(/ run succeeded$/),
      `run ${run.id} succeeded`,
      expect.stringMatching(/^output: \{"comment":null,"decision":"approved",/),
    ]);
    // Each change once, in order.
    expect(lines.filter((l) => / run waiting_for_review$/.test(l))).toHaveLength(1);
    expect(lines.findIndex((l) => / run waiting_for_review$/.test(l))).toBeLessThan(lines.findIndex((l) => / run succeeded$/.test(l)));

    const json = await svc('runs', 'watch', run.id, '--json');
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({
      run: expect.objectContaining({ id: run.id, status: 'succeeded' }),
      changes: [
        expect.objectContaining({ subject: 'prepare', status: 'succeeded', attempts: 1 }),
        expect.objectContaining({ subject: 'check', status: 'succeeded', attempts: 1 }),
        expect.objectContaining({ subject: 'run', status: 'succeeded' }),
      ],
    });
  });

  it('watch exits 1 when the run is cancelled', async () => {
    const wf = await stack.apply(workspaceId, { ...reviewFlow, slug: 'approve-watch-cancel' });
    const run = (await svc('runs', 'start', wf.id, '--input', '{}', '--json')).json();
    const watch = svcCliLive(['runs', 'watch', run.id], cliEnv());
    await waitFor(
      async () => watch.stdout(),
      (out) => out.includes(' run waiting_for_review\n'),
    );
    expect((await svc('runs', 'cancel', run.id)).code).toBe(0);
    const done = await watch.done;
    expect(done.code).toBe(1);
    expect(done.stdout.trimEnd().split('\n').slice(-1)).toEqual([`run ${run.id} cancelled`]);
    expect((await svc('runs', 'watch', 'run_nope')).stderr.trim()).toBe('error: Run run_nope not found (run_not_found)');
  });
});
