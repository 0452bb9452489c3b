import { findFreePort } from '@svc/devstack';
import { startEchoServer } from '../helpers/echoServer';
import { waitFor } from '../helpers/fixtures';
import { api, startFaultStack } from './helpers/faultStack';
import type { FaultStack } from './helpers/faultStack';

// Real processes and servers restarted: minutes, not seconds, on a busy 2-core machine.
jest.setTimeout(300_000);

let stack: FaultStack;

beforeAll(async () => {
  stack = await startFaultStack({
    // Operator settings: a plain-http loopback receiver, and a retry schedule compressed
    // from about 24 hours to about a minute.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_ALLOW_HTTP: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,2s,3s,60s',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
});
afterAll(async () => {
  await stack?.stop();
});

it('a receiver down across several retry steps gets every event afterwards, each once in the log of successes', async () => {
  const gateway = await stack.gateway();
  await stack.worker();
  const { key, workspaceId } = await stack.tenant({ limits: { rateLimitPerMin: 100_000 } });
  const port = await findFreePort();
  const created = await api(gateway.url, key, 'POST', '/api/v1/webhook-endpoints', {
    url: `http://127.0.0.1:${port}/hooks`,
    event_types: ['run.succeeded'],
  });
  expect(created.status).toBe(201);
  const endpointId = created.body.id;
  const wf = await stack.apply(workspaceId, {
    name: 'Quick',
    slug: 'quick',
    steps: [{ key: 'a', type: 'transform', expression: 'input' }],
  });

  // Nothing listens on the port: every attempt is refused.
  const runIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await api(gateway.url, key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: { i } });
    runIds.push(r.body.id);
  }
  const attempted = (min: number) =>
    waitFor(
      () => stack.db.prisma.webhookDelivery.findMany({ where: { endpointId } }),
      (ds) => ds.length === 20 && ds.every((d) => d.attemptCount >= min),
      60_000,
      250,
    );
  await attempted(3); // the first try and two retries failed for every event
  expect(await stack.db.prisma.webhookAttempt.count({ where: { delivery: { endpointId }, responseStatus: { gte: 200, lt: 300 } } })).toBe(
    0,
  );

  const receiver = await startEchoServer((_req, res) => {
    res.writeHead(204);
    res.end();
  }, port);
  try {
    const deliveries = await waitFor(
      () => stack.db.prisma.webhookDelivery.findMany({ where: { endpointId } }),
      (ds) => ds.every((d) => d.status === 'succeeded'),
      60_000,
      250,
    );
    expect(deliveries).toHaveLength(20);
    // One event per run, and every one of them arrived, signed.
    const events = await stack.db.prisma.event.findMany({ where: { workspaceId, type: 'run.succeeded' } });
    expect(events).toHaveLength(20);
    const received = new Set(receiver.requests.map((r) => r.headers['svc-event-id']));
    expect([...received].sort()).toEqual(events.map((e) => e.id).sort());
    expect(receiver.requests.every((r) => /^t=\d+,v1=[0-9a-f]{64}$/.test(String(r.headers['svc-signature'])))).toBe(true);
    // The delivery log: exactly one success per event, after the refused attempts.
    const successes = await stack.db.prisma.webhookAttempt.findMany({
      where: { delivery: { endpointId }, responseStatus: { gte: 200, lt: 300 } },
      include: { delivery: true },
    });
    expect(successes.map((a) => a.delivery.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    expect(successes.every((a) => a.number >= 4)).toBe(true);
    const endpoint = await api(gateway.url, key, 'GET', `/api/v1/webhook-endpoints/${endpointId}`);
    expect(endpoint.body.status).toBe('enabled');
  } finally {
    await receiver.close();
  }
});
