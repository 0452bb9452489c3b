import type { HttpAnswer } from '../helpers/http';
import { statusCounts, waitFor } from '../helpers/fixtures';
import { api, startFaultStack } from './helpers/faultStack';
import type { AppProcess, FaultStack } from './helpers/faultStack';
import type { Spawned } from '../helpers/processes';

// Real processes and servers restarted: minutes, not seconds, on a busy 2-core machine.
jest.setTimeout(300_000);

let stack: FaultStack;
let gateways: AppProcess[];
let workers: Spawned[];

beforeAll(async () => {
  stack = await startFaultStack();
  gateways = [await stack.gateway(), await stack.gateway()];
  workers = [await stack.worker(), await stack.worker()];
});
afterAll(async () => {
  await stack?.stop();
});

it('holds the rate limit across two gateways', async () => {
  const { key } = await stack.tenant({ limits: { rateLimitPerMin: 6 } });
  // One after the other, alternating: each gateway serves half of what the shared count allows.
  const answers: { g: number; r: HttpAnswer }[] = [];
  for (let i = 0; i < 14; i++) answers.push({ g: i % 2, r: await api(gateways[i % 2].url, key, 'GET', '/api/v1/workflows') });
  expect(answers.map((a) => a.r.status)).toEqual([...Array(6).fill(200), ...Array(8).fill(429)]);
  const byGateway = gateways.map((_, g) => answers.filter((a) => a.g === g && a.r.status === 200).length);
  expect(byGateway).toEqual([3, 3]); // both processes counted in one store
});

it('holds the concurrency limit across two workers, and killing a gateway and a worker loses nothing', async () => {
  const { key, workspaceId } = await stack.tenant({ limits: { rateLimitPerMin: 100_000, concurrency: 2 } });
  const wf = await stack.apply(workspaceId, {
    name: 'Slow',
    slug: 'slow',
    steps: [
      { key: 'pause', type: 'delay', duration: '1500ms' },
      { key: 'done', type: 'transform', expression: 'input.i' },
    ],
  });
  const start = async (g: AppProcess, i: number) => {
    const r = await api(g.url, key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: { i } });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push(await start(gateways[i % 2], i));

  let maxHolding = 0;
  let maxRunning = 0;
  let killed = false;
  await waitFor(
    async () => {
      const counts = await statusCounts(stack.db, ids);
      const holding = await stack.db.prisma.runSlot.count({ where: { workspaceId, holding: true } });
      maxHolding = Math.max(maxHolding, holding);
      maxRunning = Math.max(maxRunning, counts.running ?? 0);
      if (!killed && (counts.succeeded ?? 0) >= 2) {
        killed = true;
        await Promise.all([gateways[0].stop('SIGKILL'), workers[0].stop('SIGKILL')]);
        // New work keeps arriving through the gateway that is left.
        for (let i = 8; i < 10; i++) ids.push(await start(gateways[1], i));
      }
      return counts;
    },
    (c) => killed && c.succeeded === 10,
    120_000,
    50,
  );
  expect(maxHolding).toBeLessThanOrEqual(2);
  expect(maxRunning).toBeLessThanOrEqual(2);
  expect(maxRunning).toBe(2); // and the limit was reached, not merely never tested

  // Each workflow closed too (it gives its slot back after the read model says `succeeded`).
  const results = await Promise.all(ids.map((id) => stack.temporal.workflow.getHandle(id).result()));
  expect(results.map((r) => r.status)).toEqual(Array(10).fill('succeeded'));
  // Nothing lost, nothing doubled: ten runs, each with its own output and each step once.
  expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(10);
  expect((await stack.temporal.workflow.count(`SvcWorkflowId = "${wf.id}"`)).count).toBe(10);
  const runs = await stack.db.prisma.run.findMany({ where: { id: { in: ids } }, include: { steps: true } });
  for (const run of runs) {
    expect(run.output).toBe((run.input as { i: number }).i);
    expect(run.steps.map((s) => s.status).sort()).toEqual(['succeeded', 'succeeded']);
  }
  expect(await stack.db.prisma.runSlot.count({ where: { workspaceId } })).toBe(0);
});
