import { json, startEchoServer } from '../helpers/echoServer';
import { statusCounts, waitFor } from '../helpers/fixtures';
import { api, startFaultStack } from './helpers/faultStack';
import type { AppProcess, FaultStack } from './helpers/faultStack';

// Real processes and servers restarted: minutes, not seconds, on a busy 2-core machine.
jest.setTimeout(300_000);

let stack: FaultStack;
let gateway: AppProcess;

beforeAll(async () => {
  stack = await startFaultStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  gateway = await stack.gateway();
});
afterAll(async () => {
  await stack?.stop();
});

/** Starts `n` runs, `parallel` requests at a time; returns their ids in request order. */
async function startRuns(key: string, workflowId: string, n: number, parallel = 10): Promise<string[]> {
  const ids: string[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        const r = await api(gateway.url, key, 'POST', `/api/v1/workflows/${workflowId}/runs`, { input: { i } });
        if (r.status !== 201) throw new Error(`start ${i}: ${r.status} ${JSON.stringify(r.body)}`);
        ids[i] = r.body.id;
      }
    }),
  );
  return ids;
}

it('kill -9 of the worker with 100 runs in flight: after a restart all finish, one run per request, each step once', async () => {
  const receiver = await startEchoServer((_req, res) => setTimeout(() => json(res, 200, { ok: true }), 200));
  try {
    const { key, workspaceId } = await stack.tenant({ limits: { rateLimitPerMin: 100_000, concurrency: 500 } });
    const wf = await stack.apply(workspaceId, {
      name: 'In flight',
      slug: 'in-flight',
      steps: [
        { key: 'wait', type: 'delay', duration: '1s' },
        { key: 'call', type: 'http', method: 'POST', url: receiver.url, body: { i: '{{ input.i }}' }, timeout: '2s' },
        { key: 'shape', type: 'transform', expression: '{ "i": input.i, "ok": steps.call.output.body.ok }' },
      ],
    });
    const worker = await stack.worker();
    const ids = await startRuns(key, wf.id, 100);
    await worker.stop('SIGKILL');
    const atKill = await statusCounts(stack.db, ids);
    expect(atKill.succeeded ?? 0).toBeLessThan(100); // the kill really hit runs in flight

    await stack.worker();
    const final = await waitFor(
      () => statusCounts(stack.db, ids),
      (c) => c.succeeded === 100,
      120_000,
      500,
    );
    expect(final).toEqual({ succeeded: 100 });
    // Each workflow has closed too (its last act, after the read model, is the event).
    const results = await Promise.all(ids.map((id) => stack.temporal.workflow.getHandle(id).result()));
    expect(results.every((r) => r.status === 'succeeded')).toBe(true);

    // Exactly one run per request, in PostgreSQL and in Temporal.
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(100);
    expect((await stack.temporal.workflow.count(`SvcWorkflowId = "${wf.id}"`)).count).toBe(100);
    // Every step recorded once, finished, with the output of its own run.
    const steps = await stack.db.prisma.runStep.findMany({ where: { runId: { in: ids } } });
    expect(steps).toHaveLength(300);
    expect(steps.every((s) => s.status === 'succeeded' && s.finishedAt !== null)).toBe(true);
    const runs = await stack.db.prisma.run.findMany({ where: { id: { in: ids } } });
    for (const run of runs) expect(run.output).toEqual({ i: (run.input as { i: number }).i, ok: true });
    // One `run.succeeded` event per run.
    const events = await stack.db.prisma.event.findMany({ where: { workspaceId, type: 'run.succeeded' } });
    expect(events).toHaveLength(100);
    expect(new Set(events.map((e) => (e.data as { id: string }).id)).size).toBe(100);
  } finally {
    await receiver.close();
  }
});
