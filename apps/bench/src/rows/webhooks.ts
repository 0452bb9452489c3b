import type { Bench } from '../context';
import { api, postRun } from '../context';
import { assertClean, fnLoad } from '../load';
import { WebhookReceiver } from '../receiver';
import { makeRow } from '../report';
import type { Row } from '../report';
import { round, summarize } from '../stats';

/**
 * Outbound webhooks: runs started at a steady rate (half the SDK floor's runs finished per second,
 * from the finish row), each ending in a `run.succeeded` event for a local receiver that checks
 * its signature. Latency = arrival − the event's `created_at` (the run settled). The baseline is
 * the SDK floor's own webhook path at the same rate: a run whose activity starts a delivery
 * workflow that POSTs the signed event (floor/workflows.ts), two workflows per event as svc's.
 * Events still missing when collection ends are counted, not waited for.
 */
export async function webhooksRow(b: Bench, before: Row[]): Promise<Row> {
  const floorFinished = before.find((r) => r.id === 'finish.throughput')?.baseline.value;
  if (!floorFinished) throw new Error('the webhook row is measured after the finish row, at half its SDK floor rate');
  const rate = Math.max(1, Math.round(floorFinished / 2));
  const receiver = new WebhookReceiver();
  await receiver.start();
  try {
    const tenant = await b.tenant('webhooks');
    const svcEndpoint = receiver.endpoint('svc');
    const { secret } = await api<{ secret: string }>(b, 'POST', '/api/v1/webhook-endpoints', {
      key: tenant.keys[0],
      body: { url: svcEndpoint.url, event_types: ['run.succeeded'] },
    });
    svcEndpoint.setSecret(secret);
    const floorUrl = receiver.endpoint('floor', b.stack.floorWebhookSecret).url;
    const sides = {
      floor: () => b.floor.startWithDelivery(floorUrl),
      svc: async () => (await postRun(b, tenant, { wait: false })).id,
    };

    /** Runs started at `at` per second for `seconds`, then their events collected. */
    const offer = async (what: string, start: () => Promise<string>, at: number, seconds: number) => {
      const ids: string[] = [];
      const begun = Date.now();
      const load = await fnLoad(async () => ids.push(await start()), { concurrency: 16, rate: at, amount: Math.round(at * seconds) });
      assertClean(`${what} starts`, load);
      const until = Date.now() + b.profile.collectSec * 1000;
      while (ids.some((id) => !receiver.arrivals.has(id)) && Date.now() < until) {
        b.stack.assertAlive();
        await new Promise((r) => setTimeout(r, 100));
      }
      const arrived = ids.flatMap((id) => receiver.arrivals.get(id) ?? []);
      if (arrived.length === 0) throw new Error(`${what}: no webhook arrived (bad signatures: ${receiver.badSignatures})`);
      const spanMs = Math.max(...arrived.map((a) => a.receivedAt)) - begun;
      const latency = summarize(arrived.map((a) => a.latencyMs));
      return { latency, perSecond: (arrived.length / spanMs) * 1000, missing: ids.length - arrived.length };
    };

    b.say(`webhooks: ${b.profile.loadSec} s of runs started at ${rate}/s a side`);
    await offer('floor warm-up', sides.floor, 10, b.profile.warmup / 10);
    await offer('svc warm-up', sides.svc, 10, b.profile.warmup / 10);
    const floor = await offer('SDK floor with delivery', sides.floor, rate, b.profile.loadSec);
    const svc = await offer('svc', sides.svc, rate, b.profile.loadSec);
    if (receiver.badSignatures) throw new Error(`${receiver.badSignatures} webhooks failed their signature check`);
    return makeRow({
      id: 'webhooks.p95',
      title: `webhook delivery p95, runs started at ${rate}/s`,
      unit: 'ms',
      svc: { name: 'svc', value: svc.latency.p95, latency: svc.latency },
      baseline: { name: 'SDK floor with delivery', value: floor.latency.p95, latency: floor.latency },
      target: { op: '<=', bound: 2, text: '≤ 2×' },
      context: {
        offeredPerSecond: rate,
        svcEventsPerSecond: round(svc.perSecond, 1),
        floorEventsPerSecond: round(floor.perSecond, 1),
        svcEventsMissing: svc.missing,
        floorEventsMissing: floor.missing,
      },
    });
  } finally {
    await receiver.stop();
  }
}
