import { Client, Connection } from '@temporalio/client';
import type { TemporalDevServer } from '@svc/devstack';
import { isResourceExhausted, waitForSettleUpdate } from '@svc/temporal';
import { dedicatedTemporal } from './helpers/dedicatedTemporal';
import { slow } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Temporal's limit of in-flight updates per workflow, provoked for real: a dedicated dev server
 * with `history.maxInFlightUpdates=2` (the shared one keeps its default of 10). Waits on a run that
 * is not settled (a 60 s delay) are accepted and stay in flight until their own deadline, so the
 * limit is reached for real. A replay's wait is still answered (the run as it is at its deadline);
 * a cancel or a review decision, which need an update of their own, answer 503 `unavailable` with
 * Retry-After, at once, never 500.
 */

const LIMIT = 2;

let server: TemporalDevServer;
let stack: TestStack;
let key: string;
let workspaceId: string;
/** A connection without retries: its probes see RESOURCE_EXHAUSTED as the server sends it. */
let probeConnection: Connection;
let probe: Client;

beforeAll(async () => {
  server = await dedicatedTemporal({ 'history.maxInFlightUpdates': LIMIT });
  stack = await startStack({ TEMPORAL_ADDRESS: server.address, RUN_WAIT_TIMEOUT_MS: '5000' });
  ({ key, workspaceId } = await stack.tenant());
  probeConnection = await Connection.connect({ address: server.address, interceptors: [] });
  probe = new Client({ connection: probeConnection, namespace: stack.config.TEMPORAL_NAMESPACE });
});
afterAll(async () => {
  await probeConnection?.close();
  await stack?.stop();
  await server?.stop();
});

/**
 * Fills the workflow's in-flight updates with LIMIT harmless waits of our own, each accepted and
 * in flight for a minute whoever waits on it. An earlier update still finishing (the first
 * request's wait ends by its own deadline) may refuse some for a moment; they are sent again
 * until LIMIT are ours, and then every other update is refused for that minute.
 */
async function fillInFlightUpdates(temporalWorkflowId: string): Promise<void> {
  const handle = probe.workflow.getHandle(temporalWorkflowId);
  const deadline = Date.now() + 30_000;
  for (let accepted = 0; accepted < LIMIT;) {
    if (Date.now() > deadline) throw new Error(`only ${accepted} of ${LIMIT} waits were accepted`);
    try {
      await handle.startUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 60_000 }], waitForStage: 'ACCEPTED' });
      accepted++;
    } catch (err) {
      if (!isResourceExhausted(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function expectUnavailable(r: { status: number; headers: Headers; body: any }) {
  expect([r.status, r.body.code]).toEqual([503, 'unavailable']);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

it('answers a wait at its deadline, and 503 with Retry-After at once to a cancel and a review decision, at the in-flight update limit', async () => {
  const wf = await stack.apply(workspaceId, slow(60_000, 'slow-limit'));
  // The run never settles within the wait (5 s here): it answers `running`.
  const body = { input: {}, wait: true };
  const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body, headers: { 'idempotency-key': 'limit-1' } });
  expect([started.status, started.body.status]).toEqual([201, 'running']);
  const runId = started.body.id;
  const temporalWorkflowId = `${workspaceId}/${wf.id}/limit-1`;
  try {
    await fillInFlightUpdates(temporalWorkflowId);
    // The replay's wait is refused by Temporal, asks again meanwhile, and answers at its deadline.
    const replay = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body, headers: { 'idempotency-key': 'limit-1' } });
    expect([replay.status, replay.body.id, replay.body.status]).toEqual([200, runId, 'running']);
    const t0 = Date.now();
    expectUnavailable(await stack.api('POST', `/api/v1/runs/${runId}/cancel`, { key }));
    // The run holds no review in Temporal; a pending one in the read model makes the API send the decision.
    await stack.db.prisma.review.create({
      data: { id: 'rev_limittest00000000000000', runId, stepKey: 'pause', title: 'x', expiresAt: new Date(Date.now() + 3600_000) },
    });
    expectUnavailable(await stack.api('POST', `/api/v1/runs/${runId}/review`, { key, body: { decision: 'approve' } }));
    // Refused at once, not after the SDK's own retries of RESOURCE_EXHAUSTED (about 35 s each).
    expect(Date.now() - t0).toBeLessThan(15_000);
  } finally {
    await stack.temporal.workflow.getHandle(temporalWorkflowId).terminate('test over');
  }
});
