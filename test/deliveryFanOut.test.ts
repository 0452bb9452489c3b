import type { Client } from '@temporalio/client';
import { recordEventAndDeliveries } from '@svc/domain';
import { createDeliveryStarter } from '@svc/temporal';
import type { DeliveryStartBounds } from '@svc/temporal';
import { greet, waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver, ReceiverHandler } from './helpers/httpsReceiver';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

/**
 * An event of a workspace with its 50 endpoints: its deliveries are started a few at a time, each
 * start under a deadline, within a budget, and what is not started goes to the outbox relay; while
 * it fans out, another workspace's delivery arrives about as soon as it does alone.
 */

let stack: TestStack;
const receivers: HttpsReceiver[] = [];
beforeAll(async () => {
  stack = await startStack({
    // Operator settings: the loopback receivers of this test and their self-signed CA.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
});

async function receiver(handler?: ReceiverHandler): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver(handler);
  receivers.push(r);
  return r;
}

/** A workspace with the greet workflow and `n` endpoints on `r` (paths /0 … /n-1), for run.succeeded. */
async function workspaceWithEndpoints(r: HttpsReceiver, n: number): Promise<Tenant & { workflowId: string }> {
  const t = await stack.tenant();
  const wf = await stack.apply(t.workspaceId, greet);
  for (let i = 0; i < n; i++) {
    const e = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      body: { url: `${r.origin}/${i}`, event_types: ['run.succeeded'] },
    });
    expect(e.status).toBe(201);
  }
  return { ...t, workflowId: wf.id };
}

/** Runs greet to its end (raising run.succeeded); resolves with the run id. */
async function succeed(t: Tenant & { workflowId: string }): Promise<string> {
  const r = await stack.api('POST', `/api/v1/workflows/${t.workflowId}/runs`, { key: t.key, body: { input: { name: 'Ada' }, wait: true } });
  expect(r.body.status).toBe('succeeded');
  return r.body.id;
}

/** ms from the start of a run until `r` received its event. */
async function deliveredAfter(t: Tenant & { workflowId: string }, r: HttpsReceiver): Promise<number> {
  const begun = Date.now();
  const runId = await succeed(t);
  const got = await waitFor(
    async () => r.requests.find((q) => q.body?.data?.id === runId),
    (q) => q !== undefined,
    60_000,
    10,
  );
  return got!.at - begun;
}

/** Every delivery of the workspace's event: one per endpoint, each started once and sent once. */
async function expectOneDeliveryPerEndpoint(workspaceId: string, eventId: string, r: HttpsReceiver, n: number) {
  const deliveries = await waitFor(
    () => stack.db.prisma.webhookDelivery.findMany({ where: { workspaceId, eventId } }),
    (ds) => ds.length === n && ds.every((d) => d.status === 'succeeded'),
    60_000,
    100,
  );
  expect(new Set(deliveries.map((d) => d.endpointId)).size).toBe(n);
  expect(deliveries.every((d) => d.attemptCount === 1 && d.dispatchedAt !== null)).toBe(true);
  const received = r.requests.filter((q) => q.body?.id === eventId);
  expect(received).toHaveLength(n);
  expect(new Set(received.map((q) => q.path)).size).toBe(n);
}

it("fans 50 endpoints out to exactly one delivery each, while another workspace's delivery arrives promptly", async () => {
  // Workspace A's receivers take their time to answer: its deliveries hold their attempts a while.
  const slow = await receiver((_q, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    }, 500);
  });
  const fast = await receiver();
  const a = await workspaceWithEndpoints(slow, 50);
  const b = await workspaceWithEndpoints(fast, 1);

  // B alone, a few times: its baseline on this machine now.
  const alone: number[] = [];
  for (let i = 0; i < 3; i++) alone.push(await deliveredAfter(b, fast));
  const baseline = Math.max(...alone);

  // A's event and B's at once, then B's again while A's deliveries are still being sent.
  const [aRun, during] = await Promise.all([succeed(a), deliveredAfter(b, fast)]);
  const later = await deliveredAfter(b, fast);
  expect(Math.max(during, later)).toBeLessThan(Math.max(4 * baseline, baseline + 3_000));

  const event = await stack.db.prisma.event.findFirstOrThrow({ where: { workspaceId: a.workspaceId, type: 'run.succeeded' } });
  expect(event.dedupeKey).toContain(aRun);
  await expectOneDeliveryPerEndpoint(a.workspaceId, event.id, slow, 50);
});

it("holds at most a workspace's bound of attempts in flight in a worker, while another workspace's delivery goes through", async () => {
  // Workspace A's receivers never answer: each attempt holds on to its slot until the attempt's deadline.
  const held = { now: 0, most: 0 };
  const hanging = await receiver((_q, res) => {
    held.most = Math.max(held.most, ++held.now);
    res.on('close', () => held.now--);
  });
  const fast = await receiver();
  const a = await workspaceWithEndpoints(hanging, 50);
  const b = await workspaceWithEndpoints(fast, 1);
  const alone = await deliveredAfter(b, fast);

  // Three of A's events: 150 attempts, more than the worker has local activity slots.
  await Promise.all([succeed(a), succeed(a), succeed(a)]);
  await waitFor(
    async () => held.most,
    (most) => most >= stack.config.WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE,
  );
  const during = await deliveredAfter(b, fast);
  expect(during).toBeLessThan(Math.max(4 * alone, alone + 3_000));
  expect(held.most).toBe(stack.config.WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE);
});

/** A starter on the worker's client, as the worker makes it, with these bounds; `inFlight` counts its starts under way. */
function boundedStarter(bounds: DeliveryStartBounds) {
  const gauge = { now: 0, most: 0 };
  const client = stack.workerClient;
  // The real client, its workflow starts counted while they are under way.
  const counted = Object.create(client) as Client;
  Object.defineProperty(counted, 'workflow', {
    value: Object.assign(Object.create(client.workflow), {
      start: async (...args: Parameters<Client['workflow']['start']>) => {
        gauge.most = Math.max(gauge.most, ++gauge.now);
        try {
          return await client.workflow.start(...args);
        } finally {
          gauge.now--;
        }
      },
    }),
  });
  const starter = createDeliveryStarter({
    client: counted,
    db: stack.db.sql,
    taskQueue: stack.config.TEMPORAL_DELIVERY_TASK_QUEUE,
    scheduleMs: [300],
    attemptTimeoutMs: 5_000,
    eager: true,
    bounds,
  });
  return { starter, gauge };
}

/** An event of a new workspace with `n` endpoints on `r`, recorded as a publisher does (the relay waits an hour). */
async function recorded(r: HttpsReceiver, n: number) {
  const t = await workspaceWithEndpoints(r, n);
  return recordEventAndDeliveries(
    stack.db.prisma,
    { workspaceId: t.workspaceId, type: 'run.succeeded', dedupeKey: `test:${t.workspaceId}`, data: { id: t.workspaceId } },
    { dispatchDelayMs: 3_600_000 },
  ).then((e) => ({ ...e, workspaceId: t.workspaceId }));
}

it('starts a fan-out at most `concurrency` at a time, and marks every start', async () => {
  const r = await receiver();
  const event = await recorded(r, 50);
  const { starter, gauge } = boundedStarter({ concurrency: 4, startTimeoutMs: 10_000, budgetMs: 60_000 });
  const out = await starter.startAll(event.deliveries);
  expect(out).toMatchObject({ started: 50, left: [] });
  expect(out.error).toBeUndefined();
  expect(gauge.most).toBeGreaterThan(1);
  expect(gauge.most).toBeLessThanOrEqual(4);
  await expectOneDeliveryPerEndpoint(event.workspaceId, event.eventId, r, 50);
});

it('leaves to the outbox relay, due at once, what it did not start: past the budget or past its deadline', async () => {
  const r = await receiver();
  const unbegun = await recorded(r, 10);
  const spent = await boundedStarter({ concurrency: 4, startTimeoutMs: 10_000, budgetMs: 0 }).starter.startAll(unbegun.deliveries);
  expect(spent).toMatchObject({ started: 0, left: expect.arrayContaining(unbegun.deliveries) });

  const late = await recorded(r, 10);
  const hurried = await boundedStarter({ concurrency: 4, startTimeoutMs: 1, budgetMs: 60_000 }).starter.startAll(late.deliveries);
  expect(hurried.left.length).toBeGreaterThan(0);
  expect(hurried.error).toBeDefined();

  // Handed over, they are due now, not an hour from now: the relay starts each once.
  await expectOneDeliveryPerEndpoint(unbegun.workspaceId, unbegun.eventId, r, 10);
  await expectOneDeliveryPerEndpoint(late.workspaceId, late.eventId, r, 10);
});
