import { performance } from 'node:perf_hooks';
import { clearBacklog } from '../backlog';
import type { BenchContext } from '../context';
import { apiCall, runsLoad } from '../context';
import { assertClean } from '../load';
import { WebhookReceiver } from '../receiver';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { round, summarize } from '../stats';
import type { LatencySummary } from '../stats';

/** The share of the offered event rate that must be reached for the latency target to count. */
const RATE_REACHED = 0.9;

interface RatePhase {
  offered: number;
  startsPerSecond: number;
  runsStarted: number;
  eventsReceived: number;
  /** Events per second over the span in which the received events were committed. */
  eventsPerSecond: number;
  latency: LatencySummary;
  /** Runs started whose event had not arrived when collection ended. */
  unfinished: number;
}

/**
 * Outbound webhooks: runs started through the API at a fixed rate, each ending in a
 * `run.succeeded` event for one subscribed endpoint, and a local receiver that checks the
 * signature. Latency = the signed request's arrival − the event's `created_at` (committed).
 * The target's rate is half the floor's runs finished per second (finishRuns.ts), its bound
 * twice the floor's one-at-a-time execute p95 (waitRuns.ts); a low rate shows the delivery
 * latency of a system that keeps up. The events are collected while the load lasts and
 * `webhookCollectSec` after; runs that have not ended by then are terminated and counted (the
 * event rate reached is reported beside the latency).
 */
export async function webhooksScenario(ctx: BenchContext, floor: { perSecond: number; latency: LatencySummary }) {
  const { profile: p, stack } = ctx;
  const receiver = new WebhookReceiver();
  await receiver.start();
  try {
    const phase = async (label: string, rate: number, durationSec: number): Promise<RatePhase> => {
      const tenant = await ctx.newTenant(label);
      const endpoint = await apiCall<{ id: string; secret: string }>(ctx, 'POST', `${stack.apiUrl}/api/v1/webhook-endpoints`, {
        key: tenant.key,
        body: { url: receiver.urlFor(label), event_types: ['run.succeeded'], description: 'bench receiver' },
        expect: 201,
      });
      receiver.setSecret(label, endpoint.secret);
      const runIds: string[] = [];
      const load = await runsLoad(ctx, tenant, {
        wait: false,
        connections: Math.min(64, Math.max(8, Math.ceil(rate / 4))),
        overallRate: rate,
        // A count, not a duration: every offered start is answered, however slow the answers.
        amount: Math.round(rate * durationSec),
        onBody: (status, body) => {
          if (status === 201) runIds.push((JSON.parse(body) as { id: string }).id);
        },
      });
      assertClean(`run starts at ${rate}/s`, load);
      // Until every event is in, or the collection window is over (and at least one event came).
      const until = performance.now() + p.webhookCollectSec * 1000;
      const giveUp = performance.now() + p.firstEventTimeoutMs;
      const arrived = () => runIds.filter((id) => receiver.byRun.has(id)).length;
      while (arrived() < runIds.length && (performance.now() < until || arrived() === 0) && performance.now() < giveUp) {
        stack.assertAlive();
        await new Promise((r) => setTimeout(r, 100));
      }
      const unfinished = runIds.length - arrived();
      if (p.clearBacklogs) await clearBacklog(ctx.db, ctx.temporal, tenant.workspaceId, 0, stack.assertAlive);
      const got = runIds.filter((id) => receiver.byRun.has(id)).map((id) => receiver.byRun.get(id)!);
      if (got.length === 0) throw new Error(`webhooks at ${rate}/s: no event arrived (bad signatures: ${receiver.badSignatures})`);
      const ends = got.map((g) => g.eventCreatedAt);
      const spanMs = Math.max(...ends) - Math.min(...ends);
      return {
        offered: rate,
        startsPerSecond: load.perSecond,
        runsStarted: runIds.length,
        eventsReceived: got.length,
        eventsPerSecond: spanMs > 0 ? ((got.length - 1) / spanMs) * 1000 : Number.NaN,
        latency: summarize(got.map((g) => g.receivedAt - g.eventCreatedAt)),
        unfinished,
      };
    };

    if (p.warmup >= 10) {
      ctx.rss.setPhase('webhooks-warmup');
      ctx.say('webhooks: warming up');
      await phase('webhooks-warmup', 10, Math.ceil(p.warmup / 10));
    }

    const top = Math.max(1, Math.round(floor.perSecond / 2));
    const rates = [...new Set([Math.min(p.webhookLowRate, top), top])];
    const perRate: Record<string, RatePhase> = {};
    const details: Detail[] = [];
    for (const rate of rates) {
      ctx.rss.setPhase(`webhooks-${rate}`);
      ctx.say(`webhooks: ${p.webhookSec}s of runs started at ${rate}/s`);
      const r = await phase(`webhooks-${rate}`, rate, p.webhookSec);
      perRate[rate] = r;
      details.push({
        title: `webhooks, runs offered at ${rate}/s: delivery p50 / p95 / p99`,
        value:
          `${round(r.latency.p50, 1)} / ${round(r.latency.p95, 1)} / ${round(r.latency.p99, 1)} ms over ${r.eventsReceived} events ` +
          `(reached ${round(r.startsPerSecond, 1)} starts/s, ${round(r.eventsPerSecond, 1)} events/s; ${r.unfinished} of ${r.runsStarted} runs unfinished)`,
      });
    }
    const at = perRate[top];
    const row = ratioRow({
      id: 'webhooks.p95',
      title: `webhook delivery p95, runs offered at ${top}/s (½ floor)`,
      unit: 'ms',
      value: at.latency.p95,
      baseline: floor.latency.p95,
      baselineName: 'floor execute p95, local activity',
      target: { op: '<=', bound: 2, text: `≤ 2.00× at ≥ ${round(top * RATE_REACHED, 1)} events/s` },
    });
    const reached = at.eventsPerSecond >= top * RATE_REACHED;
    const rows: Row[] = [
      { ...row, pass: row.pass && reached, note: reached ? undefined : `only ${round(at.eventsPerSecond, 1)} events/s reached` },
    ];
    details.push({ title: 'webhooks: signature failures; duplicates', value: `${receiver.badSignatures}; ${receiver.duplicates}` });
    if (receiver.badSignatures) throw new Error(`${receiver.badSignatures} webhooks failed signature verification`);
    return { rows, details, raw: { rates: perRate, duplicates: receiver.duplicates } };
  } finally {
    await receiver.stop();
  }
}
