import { statusCounts, waitFor } from '../helpers/fixtures';
import { call } from '../helpers/http';
import { api, startFaultStack } from './helpers/faultStack';
import type { AppProcess, FaultStack } from './helpers/faultStack';
import type { Tenant } from '../helpers/tenants';

// Real processes and servers restarted: minutes, not seconds, on a busy 2-core machine.
jest.setTimeout(300_000);

let stack: FaultStack;
let gateway: AppProcess;
let tenant: Tenant;
let workflowId: string;

async function timerFired(runId: string): Promise<boolean> {
  const history = await stack.temporal.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).some((e) => e.timerFiredEventAttributes);
}

beforeAll(async () => {
  stack = await startFaultStack();
  gateway = await stack.gateway();
  await stack.worker();
  tenant = await stack.tenant({ limits: { rateLimitPerMin: 100_000, concurrency: 100 } });
  workflowId = (
    await stack.apply(tenant.workspaceId, {
      name: 'Pauses',
      slug: 'pauses',
      steps: [
        { key: 'first', type: 'transform', expression: 'input.i' },
        { key: 'wait', type: 'delay', duration: '4s' },
        { key: 'last', type: 'transform', expression: 'steps.first.output * 2' },
      ],
    })
  ).id;
});
afterAll(async () => {
  await stack?.stop();
});

const start = (i: number) => api(gateway.url, tenant.key, 'POST', `/api/v1/workflows/${workflowId}/runs`, { input: { i } });
const readyz = () => call(`${gateway.url}/readyz`);

async function startRuns(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await start(i);
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  return ids;
}

/** Every run succeeded with its own output, each step recorded once. */
async function expectAllSucceeded(ids: string[]) {
  await waitFor(
    () => statusCounts(stack.db, ids),
    (c) => c.succeeded === ids.length,
    120_000,
    500,
  );
  const runs = await stack.db.prisma.run.findMany({ where: { id: { in: ids } }, include: { steps: true } });
  for (const run of runs) {
    expect(run.output).toBe((run.input as { i: number }).i * 2);
    expect(run.steps.map((s) => [s.key, s.status])).toEqual(
      expect.arrayContaining([
        ['first', 'succeeded'],
        ['wait', 'succeeded'],
        ['last', 'succeeded'],
      ]),
    );
  }
}

it('restarting the (file-backed) Temporal server mid-run: the runs finish', async () => {
  const ids = await startRuns(10);
  await waitFor(
    () => statusCounts(stack.db, ids),
    (c) => c.running === 10,
  );
  await stack.stopTemporal();
  const down = await readyz();
  expect([down.status, down.body.checks.temporal]).toEqual([503, 'unavailable']);
  // A start needs Temporal: refused cleanly, and nothing is half-written.
  const refused = await start(99);
  expect([refused.status, refused.body.code]).toEqual([503, 'unavailable']);
  expect(await stack.db.prisma.run.count({ where: { workflowId } })).toBe(10);

  await stack.startTemporal();
  await waitFor(readyz, (r) => r.status === 200, 60_000, 500);
  await expectAllSucceeded(ids);
  // And new runs start again, on the same gateway and worker processes.
  const after = await start(7);
  expect(after.status).toBe(201);
  await expectAllSucceeded([after.body.id]);
});

it('stopping PostgreSQL: /readyz says so, requests fail cleanly with 503, nothing is lost, service resumes by itself', async () => {
  const ids = await startRuns(10);
  // Every run is in its delay (its timer started), so each has a timer to fire while the
  // database is away.
  await waitFor(
    () => stack.db.prisma.runStep.count({ where: { runId: { in: ids }, key: 'wait', status: 'running' } }),
    (n) => n === 10,
  );
  await stack.stopPostgres();
  try {
    const down = await readyz();
    expect([down.status, down.body.checks.database]).toEqual([503, 'unavailable']);
    for (const r of [await start(99), await api(gateway.url, tenant.key, 'GET', `/api/v1/runs/${ids[0]}`)]) {
      expect([r.status, r.body.code]).toEqual([503, 'unavailable']);
      expect(r.headers.get('retry-after')).toBeTruthy();
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|postgres|prisma|SELECT|at \w+ \(/i);
    }
    // Every run's delay ends while the database is away: its timer has fired in Temporal, and
    // what comes after it must wait for PostgreSQL.
    await waitFor(
      () => Promise.all(ids.map((id) => timerFired(id))),
      (fired) => fired.every(Boolean),
      60_000,
      250,
    );
  } finally {
    await stack.startPostgres();
  }
  await waitFor(readyz, (r) => r.status === 200, 60_000, 500);
  await expectAllSucceeded(ids);
  expect(await stack.db.prisma.run.count({ where: { workflowId } })).toBe(21);
  const after = await start(8);
  expect(after.status).toBe(201);
  await expectAllSucceeded([after.body.id]);
});
