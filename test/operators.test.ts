import { WorkflowFailedError } from '@temporalio/client';
import { reconcilerScheduleId } from '@svc/temporal';
import { startEchoServer } from './helpers/echoServer';
import { waitFor } from './helpers/fixtures';
import { closedExecution } from './helpers/runs';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// What an operator does in the Temporal UI (here: Temporal's client doing the same)
// is true in svc.
let stack: TestStack;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  ({ key, workspaceId } = await stack.tenant({ limits: { concurrency: 1 } }));
});
afterAll(async () => {
  await stack.stop();
});

const getRun = (id: string) => stack.api('GET', `/api/v1/runs/${id}`, { key });
const start = (wfId: string, body: Record<string, unknown> = { input: {} }) =>
  stack.api('POST', `/api/v1/workflows/${wfId}/runs`, { key, body });
const until = (id: string, ok: (run: any) => boolean, timeoutMs = 20_000) =>
  waitFor(
    () => getRun(id),
    (r) => ok(r.body),
    timeoutMs,
  );
/** The run's events, and its reviews' (whose payload is the review, naming the run). */
const eventsOf = (runId: string) =>
  stack.db.prisma.event.findMany({
    where: { workspaceId, OR: [{ data: { path: ['id'], equals: runId } }, { data: { path: ['run_id'], equals: runId } }] },
    select: { type: true },
  });

async function delayed(slug: string) {
  return stack.apply(workspaceId, {
    name: slug,
    slug,
    steps: [
      { key: 'wait', type: 'delay', duration: '60s' },
      { key: 'after', type: 'transform', expression: "'done'" },
    ],
  });
}

describe('cancel from Temporal', () => {
  it('Request Cancellation ends a running run cancelled: its step, its slot, its event and a waiting caller', async () => {
    const wf = await delayed('op-cancel');
    const run = (await start(wf.id)).body;
    await until(run.id, (r) => r.steps[0].status === 'running');
    // Behind the one slot, with a caller waiting on it.
    const next = start(wf.id, { input: {}, wait: true });
    const nextId = await waitFor(
      async () => (await stack.db.prisma.run.findFirst({ where: { workflowId: wf.id, id: { not: run.id } }, select: { id: true } }))?.id,
      (id) => id !== undefined,
    );

    const t0 = Date.now();
    await stack.temporal.workflow.getHandle(run.id).cancel();
    const ended = await until(run.id, (r) => r.status === 'cancelled', 5_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(ended.body.steps.map((s: { status: string }) => s.status)).toEqual(['cancelled', 'cancelled']);
    // Temporal shows it Canceled too.
    await expect(stack.temporal.workflow.getHandle(run.id).result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await stack.temporal.workflow.getHandle(run.id).describe()).status.name).toBe('CANCELLED');
    expect((await eventsOf(run.id)).map((e) => e.type)).toContain('run.cancelled');
    // The slot went to the next run; cancelled in turn, its waiting caller is answered.
    await until(nextId!, (r) => r.status === 'running');
    await stack.temporal.workflow.getHandle(nextId!).cancel();
    const answered = await next;
    expect([answered.status, answered.body.id, answered.body.status]).toEqual([201, nextId, 'cancelled']);
  });

  it('the `cancel` signal aborts an http request in progress', async () => {
    const receiver = await startEchoServer(() => undefined); // never answers
    receiver.requests.length = 0;
    const wf = await stack.apply(workspaceId, {
      name: 'Slow call',
      slug: 'op-http',
      steps: [{ key: 'call', type: 'http', method: 'POST', url: `${receiver.url}/slow`, timeout: '60s' }],
    });
    try {
      const run = (await start(wf.id)).body;
      await waitFor(
        async () => receiver.requests.length,
        (n) => n === 1,
      );
      await stack.temporal.workflow.getHandle(run.id).signal('cancel', { reason: 'operator' });
      // Well within the step's 60 s timeout: the request was aborted, not waited out.
      const ended = await until(run.id, (r) => r.status === 'cancelled', 5_000);
      expect(ended.body.steps[0]).toMatchObject({ key: 'call', status: 'cancelled' });
      // The signal path ends the workflow normally, with the run's status.
      expect(await stack.temporal.workflow.getHandle(run.id).result()).toEqual({ status: 'cancelled' });
    } finally {
      await receiver.close().catch(() => undefined);
    }
  });
});

describe('terminate from Temporal', () => {
  it('ends the run failed with code terminated and the reason, its step failed, its slot freed, run.failed sent', async () => {
    const wf = await delayed('op-terminate');
    const run = (await start(wf.id)).body;
    await until(run.id, (r) => r.steps[0].status === 'running');
    const next = (await start(wf.id)).body;
    await stack.temporal.workflow.getHandle(run.id).terminate('stuck upstream');
    // The reconciler Schedule runs every RECONCILE_INTERVAL_MS (well within 60 s); waiting for
    // it is the real thing, a trigger only saves time.
    await stack.temporal.schedule.getHandle(reconcilerScheduleId(stack.taskQueue)).trigger();
    const ended = await until(run.id, (r) => r.status === 'failed', 60_000);
    expect(ended.body.error).toEqual({ code: 'terminated', message: 'stuck upstream', step_key: 'wait' });
    expect(ended.body.steps.map((s: { status: string }) => s.status)).toEqual(['failed', 'skipped']);
    expect((await eventsOf(run.id)).map((e) => e.type)).toContain('run.failed');
    await until(next.id, (r) => r.status === 'running', 60_000);
    await stack.temporal.workflow.getHandle(next.id).cancel();
    await until(next.id, (r) => r.status === 'cancelled');
  });
});

describe('decideReview by signal', () => {
  it('decides the pending review as the API does, recorded as decided by temporal; a late signal changes nothing', async () => {
    const wf = await stack.apply(workspaceId, {
      name: 'Gate',
      slug: 'op-review',
      steps: [
        { key: 'gate', type: 'review', title: 'Ship it?' },
        { key: 'ship', type: 'transform', expression: "'shipped'" },
      ],
    });
    const run = (await start(wf.id, { input: {}, wait: true })).body;
    expect(run.status).toBe('waiting_for_review');
    const handle = stack.temporal.workflow.getHandle(run.id);
    await handle.signal('decideReview', { review_id: 'rev_not_this_one', decision: 'rejected' });
    await handle.signal('decideReview', { review_id: run.review.id, decision: 'approved', comment: 'from the UI' });
    await handle.signal('decideReview', { review_id: run.review.id, decision: 'rejected' }); // late
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    const after = (await getRun(run.id)).body;
    expect(after.review).toMatchObject({ status: 'approved', decision: 'approved', decided_by: 'temporal', comment: 'from the UI' });
    expect((await eventsOf(run.id)).map((e) => e.type)).toEqual(expect.arrayContaining(['review.decided', 'run.succeeded']));
  });
});

describe('reset from Temporal', () => {
  it('re-runs a finished run from its first workflow task; the API follows the new branch', async () => {
    let calls = 0;
    const receiver = await startEchoServer((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ call: calls }));
    });
    try {
      const wf = await stack.apply(workspaceId, {
        name: 'Counted',
        slug: 'op-reset',
        steps: [
          { key: 'call', type: 'http', method: 'GET', url: `${receiver.url}/n` },
          { key: 'pick', type: 'transform', expression: 'steps.call.output.body.call' },
        ],
      });
      const run = (await start(wf.id, { input: {}, wait: true })).body;
      expect([run.status, run.output]).toEqual(['succeeded', 1]);
      const handle = await closedExecution(stack, run.id);
      const { runId: firstExecution } = await handle.describe();
      const history = await handle.fetchHistory();
      const firstTask = history.events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
      await stack.temporal.workflowService.resetWorkflowExecution({
        namespace: stack.config.TEMPORAL_NAMESPACE,
        workflowExecution: { workflowId: run.id, runId: firstExecution },
        reason: 'operator test',
        workflowTaskFinishEventId: firstTask.eventId,
        requestId: `reset-${run.id}`,
      });
      const after = await until(run.id, (r) => r.status === 'succeeded' && r.output === 2);
      expect(after.body.steps.map((s: any) => [s.key, s.status, s.attempts])).toEqual([
        ['call', 'succeeded', 1],
        ['pick', 'succeeded', 1],
      ]);
      expect(after.body.steps[0].output.body).toEqual({ call: 2 });
      expect(calls).toBe(2);
      expect((await eventsOf(run.id)).filter((e) => e.type === 'run.succeeded')).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});

describe('legibility', () => {
  it('finds a run by SvcRunId, with a summary, step summaries and current details', async () => {
    const wf = await delayed('op-legible');
    const run = (await start(wf.id)).body;
    await until(run.id, (r) => r.steps[0].status === 'running');
    const handle = stack.temporal.workflow.getHandle(run.id);
    const found = await waitFor(
      async () => {
        const ids: string[] = [];
        for await (const w of stack.temporal.workflow.list({ query: `SvcRunId = "${run.id}"` })) ids.push(w.workflowId);
        return ids;
      },
      (ids) => ids.length === 1,
    );
    expect(found).toEqual([run.id]);
    const described = await handle.describe();
    expect(await described.staticSummary()).toBe(`op-legible v1 · ${workspaceId} · ${run.id}`);
    const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toBe('On step wait (delay), 1 of 2');
    const history = await handle.fetchHistory();
    const timer = history.events!.find((e) => e.timerStartedEventAttributes);
    expect(timer?.userMetadata?.summary?.data).toBeDefined();
    expect(Buffer.from(timer!.userMetadata!.summary!.data!).toString()).toContain('step wait (delay)');
    await handle.cancel();
    await until(run.id, (r) => r.status === 'cancelled');
  });
});
