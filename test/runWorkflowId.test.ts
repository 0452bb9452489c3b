import { startRun } from '@svc/domain';
import type { RunLauncher } from '@svc/domain';
import { showTrigger } from '@svc/domain';
import { SA_RUN_ID } from '@svc/temporal';
import { startGreetStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { greet, waitFor } from './helpers/fixtures';
import { call } from './helpers/http';
import { closedExecution } from './helpers/runs';
import { visibilityCaughtUp } from './helpers/visibility';

/**
 * The run's Temporal workflow id: with an Idempotency-Key the Temporal workflow
 * id is `<ws>/<wf or trigger>/<key>`, stored on the run row and used for every message to the
 * run; without one, the run id. Real gateway, PostgreSQL and Temporal dev server.
 */

let stack: TestStack;
let key: string;
let workspaceId: string;
let wfId: string;

beforeAll(async () => {
  ({ stack, key, workspaceId, wfId } = await startGreetStack());
});
afterAll(async () => {
  await stack?.stop();
});

const start = (workflowId: string, body: unknown, idem?: string) =>
  stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body, headers: idem ? { 'idempotency-key': idem } : {} });
const storedId = async (runId: string) =>
  (await stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { temporalWorkflowId: true } })).temporalWorkflowId;
/** Executions, open or closed, under one workflow id (visibility caught up first, so none is missed). */
async function executions(workflowId: string): Promise<string[]> {
  await visibilityCaughtUp(stack.temporal);
  const ids: string[] = [];
  for await (const w of stack.temporal.workflow.list({ query: `WorkflowId = "${workflowId}"` })) ids.push(w.runId);
  return ids;
}

function reviewFlow(slug: string) {
  return {
    name: 'Approve',
    slug,
    steps: [
      { key: 'approve', type: 'review', title: 'Approve?', assignees: ['ops@example.test'] },
      { key: 'done', type: 'transform', expression: "'done'" },
    ],
  };
}

describe('the Temporal workflow id of a run', () => {
  it('is <ws>/<wf>/<key> with an Idempotency-Key (any printable ASCII, "/" included), stored on the row', async () => {
    const idem = 'order/42 "a"/b?c=d';
    const r = await start(wfId, { input: { name: 'k' }, wait: true }, idem);
    expect([r.status, r.body.status]).toEqual([201, 'succeeded']);
    const expected = `${workspaceId}/${wfId}/${idem}`;
    expect(await storedId(r.body.id)).toBe(expected);
    const desc = await (await closedExecution(stack, expected)).describe();
    expect(desc.workflowId).toBe(expected);
    expect(desc.typedSearchAttributes.get(SA_RUN_ID)).toBe(r.body.id);
    expect(desc.status.name).toBe('COMPLETED');
  });

  it('is the run id without a key', async () => {
    const r = await start(wfId, { input: { name: 'n' }, wait: true });
    expect(r.status).toBe(201);
    expect(await storedId(r.body.id)).toBe(r.body.id);
    expect((await (await closedExecution(stack, r.body.id)).describe()).status.name).toBe('COMPLETED');
  });

  it('is <ws>/<trigger>/<key> for an inbound webhook start with a key', async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-hook', trigger: { secret: true, signature: false } });
    const t = await showTrigger(stack.db.prisma, stack.box, { workflowId: wf.id, baseUrl: stack.url });
    const triggerId = t.url.split('/').pop()!;
    const r = await call(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-secret': t.secret, 'idempotency-key': 'delivery-7' },
      body: JSON.stringify({ name: 'hook' }),
    });
    expect(r.status).toBe(202);
    const expected = `${workspaceId}/${triggerId}/delivery-7`;
    expect(await storedId(r.body.run_id)).toBe(expected);
    const desc = await stack.temporal.workflow.getHandle(expected).describe();
    expect(desc.typedSearchAttributes.get(SA_RUN_ID)).toBe(r.body.run_id);
  });

  it('after the 24 h window, starts a NEW run whose execution reuses the same workflow id', async () => {
    const first = await start(wfId, { input: { name: 'again' }, wait: true }, 'key-window');
    expect([first.status, first.body.status]).toEqual([201, 'succeeded']);
    await stack.db.prisma.idempotencyKey.updateMany({
      where: { workspaceId, key: 'key-window' },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const second = await start(wfId, { input: { name: 'again' }, wait: true }, 'key-window');
    expect([second.status, second.body.status]).toEqual([201, 'succeeded']);
    expect(second.body.id).not.toBe(first.body.id);
    const id = `${workspaceId}/${wfId}/key-window`;
    expect(await storedId(second.body.id)).toBe(id);
    expect((await stack.temporal.workflow.getHandle(id).describe()).typedSearchAttributes.get(SA_RUN_ID)).toBe(second.body.id);
    expect(await executions(id)).toHaveLength(2);
  });

  it('falls back to the run id when the earlier run of a reused key is still open, and both stay addressable', async () => {
    const wf = await stack.apply(workspaceId, reviewFlow('approve-reuse'));
    const first = await start(wf.id, { input: {}, wait: true }, 'key-open');
    expect([first.status, first.body.status]).toEqual([201, 'waiting_for_review']);
    await stack.db.prisma.idempotencyKey.updateMany({
      where: { workspaceId, key: 'key-open' },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const second = await start(wf.id, { input: {}, wait: true }, 'key-open');
    expect([second.status, second.body.status]).toEqual([201, 'waiting_for_review']);
    expect(await storedId(first.body.id)).toBe(`${workspaceId}/${wf.id}/key-open`);
    expect(await storedId(second.body.id)).toBe(second.body.id);
    // Messages reach each run's own execution through the stored id.
    const cancelled = await stack.api('POST', `/api/v1/runs/${second.body.id}/cancel`, { key });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    const approved = await stack.api('POST', `/api/v1/runs/${first.body.id}/review`, { key, body: { decision: 'approve' } });
    expect(approved.status).toBe(200);
    await waitFor(
      () => stack.api('GET', `/api/v1/runs/${first.body.id}`, { key }),
      (r) => r.body.status === 'succeeded',
    );
  });

  it('routes review decisions and cancellation of keyed runs to the keyed execution', async () => {
    const wf = await stack.apply(workspaceId, reviewFlow('approve-keyed'));
    const a = await start(wf.id, { input: {}, wait: true }, 'key-decide');
    const b = await start(wf.id, { input: {}, wait: true }, 'key-cancel');
    expect([a.body.status, b.body.status]).toEqual(['waiting_for_review', 'waiting_for_review']);
    const decided = await stack.api('POST', `/api/v1/runs/${a.body.id}/review`, { key, body: { decision: 'reject' } });
    expect([decided.status, decided.body.review.status]).toEqual([200, 'rejected']);
    const cancelled = await stack.api('POST', `/api/v1/runs/${b.body.id}/cancel`, { key });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    const closed = await stack.temporal.workflow.getHandle(`${workspaceId}/${wf.id}/key-cancel`).describe();
    expect(closed.status.name).toBe('COMPLETED');
  });
});

describe('a replay re-asserting the start of a still-queued run', () => {
  /** The first request's process, dying between its commit and its Temporal start. */
  const diesBeforeStart: RunLauncher = {
    start: async () => 'started',
    waitForSettle: async () => undefined,
  };

  it('starts the run the first request never started', async () => {
    const body = { input: { name: 'orphan' }, wait: true };
    const first = await startRun(
      { prisma: stack.db.prisma, launcher: diesBeforeStart },
      { workspaceId, workflowId: wfId, input: body.input, body, idempotencyKey: 'key-orphan', trigger: 'api', wait: { timeoutMs: 1 } },
    );
    expect(first.run.status).toBe('queued');
    const replay = await start(wfId, body, 'key-orphan');
    expect([replay.status, replay.body.id, replay.body.status]).toEqual([200, first.run.id, 'succeeded']);
    expect(await executions(`${workspaceId}/${wfId}/key-orphan`)).toHaveLength(1);
  });

  it('never runs the run twice, even when its execution closed while the row still says queued', async () => {
    const body = { input: { name: 'terminated' } };
    // No worker: the run stays queued; then an operator terminates its execution, which runs no
    // workflow code, so the row still says `queued` (ALLOW_DUPLICATE alone would start it again).
    const id = `${workspaceId}/${wfId}/key-terminated`;
    await stack.withoutWorker(async () => {
      const first = await start(wfId, body, 'key-terminated');
      expect([first.status, first.body.status]).toEqual([201, 'queued']);
      const runId = first.body.id;
      await stack.temporal.workflow.getHandle(id).terminate('operator');
      const replay = await start(wfId, body, 'key-terminated');
      expect([replay.status, replay.body.id, replay.body.status]).toEqual([200, runId, 'queued']);
    });
    const runs = await executions(id);
    expect(runs).toHaveLength(1);
    expect((await stack.temporal.workflow.getHandle(id).describe()).status.name).toBe('TERMINATED');
  });
});
