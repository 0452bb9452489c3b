import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { deliveryWorkflowId } from '@svc/domain';
import { clearBacklog } from '../backlog';
import type { BenchContext } from '../context';
import { apiCall, runsUrl } from '../context';
import { cpuSnapshot, cpuText, cpuUsed, perUnit, stackProcesses, totalMs } from '../cpu';
import { BENCH_INPUT } from '../fixtures';
import { deliverySplit } from '../deliverySplit';
import type { DeliverySplit } from '../deliverySplit';
import { startDurableWithDelivery } from '../floor/client';
import { floorDeliveryId } from '../floor/deliveryActivities';
import { assertClean, fnLoad, roundOrder } from '../load';
import type { LoadResult } from '../load';
import { WebhookReceiver } from '../receiver';
import type { Received } from '../receiver';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { round, summarize } from '../stats';
import type { LatencySummary } from '../stats';

/** The webhook paths measured at each rate, in the order the split and CPU details give them. */
const SIDES = 'svc | floor with delivery | durable floor with delivery';

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
  /** At the row's rate: where the latency goes, by the delivery workflows' histories (deliverySplit.ts). */
  split?: DeliverySplit;
  /** At the row's rate: what the machine spent, from the first start to the end of collection. */
  cpu?: PhaseCpu;
}

interface PhaseCpu {
  /** Each process's CPU per event received, ms. */
  msPerEvent: Record<string, number>;
  /** Every process's CPU over the phase's wall time: the cores it kept busy. */
  coresBusy: number;
}

/**
 * One side's load at one rate as collected, before it is reported: the row's rate is measured in
 * rounds, and a side's rounds are reported together (report).
 */
interface Collected {
  startsPerSecond: number;
  runsStarted: number;
  got: Received[];
  eventsPerSecond: number;
  /** With a meter: every process's CPU from the first start to the end of collection. */
  spent?: { used: Record<string, number>; wallMs: number };
}

/** Where a phase's CPU is read from: a snapshot taken as its first start went out. */
interface Meter {
  before: Record<string, number>;
  startedAt: number;
}

/**
 * Outbound webhooks: runs started through the API at a fixed rate, each ending in a
 * `run.succeeded` event for one subscribed endpoint, and a local receiver that checks the
 * signature. Latency = the signed request's arrival − the event's `created_at` (committed).
 * The target's rate is half the floor's runs finished per second (finishRuns.ts), its bound
 * twice the floor's one-at-a-time execute p95 (waitRuns.ts); a low rate shows the delivery
 * latency of a system that keeps up. The events are collected while the load lasts and
 * `webhookCollectSec` after; runs that have not ended by then are terminated and counted (the
 * event rate reached is reported beside the latency). At the row's rate every side is measured
 * in the profile's rounds (two in full), their events reported together.
 *
 * At each rate the floor's webhook path is measured too, the same way (details, no target):
 * floorRunWithDelivery (floor/workflows.ts), the transform in one local activity that then
 * starts a delivery workflow of its own, whose local activity POSTs the signed event. Like
 * svc's, it runs two workflows per event, so it shows what that costs on this machine at this
 * rate with nothing of svc's around it. And the durable floor's (durableApi.ts `POST
 * /delivery-runs`, durableDelivery.ts): the same path behind a hand-written HTTP start, its run,
 * event and delivery kept in PostgreSQL, what any service that keeps its events pays over it.
 * At the row's rate every side's latency is also split in three by its delivery workflows'
 * histories (deliverySplit.ts).
 */
export async function webhooksScenario(ctx: BenchContext, floor: { perSecond: number; latency: LatencySummary }) {
  const { profile: p, stack } = ctx;
  // At the row's rate every process's CPU is read over each side's phase: whether the machine
  // had cores left for the offered rate (FINDINGS, session 27).
  const processes = stackProcesses(stack);
  const meter = (on: boolean): Meter | undefined => (on ? { before: cpuSnapshot(processes), startedAt: performance.now() } : undefined);
  const receiver = new WebhookReceiver();
  await receiver.start();
  try {
    // A rate's starts, offered as autocannon offers them: this many callers, paced to the rate.
    const callers = (rate: number) => Math.min(64, Math.max(8, Math.ceil(rate / 4)));

    /**
     * Until every event is in, or the collection window is over (and at least one event came).
     * With `metered`, the CPU is read as the collection ends.
     */
    const collect = async (what: string, rate: number, load: LoadResult, runIds: string[], metered?: Meter): Promise<Collected> => {
      const until = performance.now() + p.webhookCollectSec * 1000;
      const giveUp = performance.now() + p.firstEventTimeoutMs;
      const arrived = () => runIds.filter((id) => receiver.byRun.has(id)).length;
      while (arrived() < runIds.length && (performance.now() < until || arrived() === 0) && performance.now() < giveUp) {
        stack.assertAlive();
        await new Promise((r) => setTimeout(r, 100));
      }
      const spent = metered && { used: cpuUsed(metered.before, cpuSnapshot(processes)), wallMs: performance.now() - metered.startedAt };
      const got = runIds.filter((id) => receiver.byRun.has(id)).map((id) => receiver.byRun.get(id)!);
      if (got.length === 0) throw new Error(`${what} at ${rate}/s: no event arrived (bad signatures: ${receiver.badSignatures})`);
      const ends = got.map((g) => g.eventCreatedAt);
      const spanMs = Math.max(...ends) - Math.min(...ends);
      return {
        startsPerSecond: load.perSecond,
        runsStarted: runIds.length,
        got,
        eventsPerSecond: spanMs > 0 ? ((got.length - 1) / spanMs) * 1000 : Number.NaN,
        spent,
      };
    };

    /**
     * A side's rounds at one rate as one phase: every round's events, their rates averaged, and
     * the CPU of all of them per event. With `deliveryOf` (a received event's delivery workflow
     * id), the latency is split too, by histories read after every round's CPU.
     */
    const report = async (rate: number, rounds: Collected[], deliveryOf?: (g: Received) => string): Promise<RatePhase> => {
      const got = rounds.flatMap((c) => c.got);
      const runsStarted = rounds.reduce((n, c) => n + c.runsStarted, 0);
      const mean = (pick: (c: Collected) => number) => rounds.reduce((n, c) => n + pick(c), 0) / rounds.length;
      const spent = rounds.flatMap((c) => (c.spent ? [{ ...c.spent, units: c.got.length }] : []));
      return {
        offered: rate,
        startsPerSecond: mean((c) => c.startsPerSecond),
        runsStarted,
        eventsReceived: got.length,
        eventsPerSecond: mean((c) => c.eventsPerSecond),
        latency: summarize(got.map((g) => g.receivedAt - g.eventCreatedAt)),
        unfinished: runsStarted - got.length,
        split:
          deliveryOf &&
          (await deliverySplit(
            ctx.temporal,
            got.map((g) => ({ ...g, deliveryWorkflowId: deliveryOf(g) })),
          )),
        cpu: spent.length
          ? {
              msPerEvent: perUnit(spent),
              coresBusy: spent.reduce((n, m) => n + totalMs(m.used), 0) / spent.reduce((n, m) => n + m.wallMs, 0),
            }
          : undefined,
      };
    };

    const svcPhase = async (label: string, rate: number, durationSec: number, metered = false): Promise<Collected> => {
      const tenant = await ctx.newTenant(label);
      const endpoint = await apiCall<{ id: string; secret: string }>(ctx, 'POST', `${stack.apiUrl}/api/v1/webhook-endpoints`, {
        key: tenant.key,
        body: { url: receiver.urlFor(label), event_types: ['run.succeeded'], description: 'bench receiver' },
        expect: 201,
      });
      receiver.setSecret(label, endpoint.secret);
      const runIds: string[] = [];
      const url = runsUrl(ctx, tenant);
      const start = async () => {
        runIds.push((await apiCall<{ id: string }>(ctx, 'POST', url, { key: tenant.key, body: { input: BENCH_INPUT }, expect: 201 })).id);
      };
      // Paced as the floor's side is (start i at i / rate s): autocannon's `overallRate` sends each
      // second's quota at once at the start of the second, bursts the floor's side never met.
      // A count, not a duration: every offered start is answered, however slow the answers.
      const cpu = meter(metered);
      const load = await fnLoad(start, { concurrency: callers(rate), amount: Math.round(rate * durationSec), overallRate: rate });
      assertClean(`run starts at ${rate}/s`, load);
      const r = await collect('webhooks', rate, load, runIds, cpu);
      if (p.clearBacklogs) await clearBacklog(ctx.db, ctx.temporal, tenant.workspaceId, 0, stack.assertAlive);
      return r;
    };

    /**
     * The same for a floor's webhook path: `startRun` starts one run whose event goes to the URL
     * it is given, and answers the run's id (its delivery's workflow id is floorDeliveryId's).
     */
    const floorPhase = async (
      label: string,
      rate: number,
      durationSec: number,
      metered: boolean,
      startRun: (webhookUrl: string) => Promise<string>,
    ): Promise<Collected> => {
      receiver.setSecret(label, stack.floorWebhookSecret);
      const url = receiver.urlFor(label);
      const runIds: string[] = [];
      const start = async () => {
        runIds.push(await startRun(url));
      };
      const cpu = meter(metered);
      const load = await fnLoad(start, { concurrency: callers(rate), amount: Math.round(rate * durationSec), overallRate: rate });
      assertClean(`${label} starts at ${rate}/s`, load);
      const r = await collect(label, rate, load, runIds, cpu);
      if (p.clearBacklogs) await ctx.floor.terminateWithDelivery(runIds.filter((id) => !receiver.byRun.has(id)));
      return r;
    };

    const withDelivery = (url: string) => ctx.floor.startWithDelivery(url);
    const durableWithDelivery = (url: string) => startDurableWithDelivery(stack.durableFloorUrl, url);

    if (p.warmup >= 10) {
      ctx.rss.setPhase('webhooks-warmup');
      ctx.say('webhooks: warming up');
      await svcPhase('webhooks-warmup', 10, Math.ceil(p.warmup / 10));
      await floorPhase('floor-webhooks-warmup', 10, Math.ceil(p.warmup / 10), false, withDelivery);
      await floorPhase('durable-webhooks-warmup', 10, Math.ceil(p.warmup / 10), false, durableWithDelivery);
    }

    const top = Math.max(1, Math.round(floor.perSecond / 2));
    const rates = [...new Set([Math.min(p.webhookLowRate, top), top])];
    const perRate: Record<string, RatePhase> = {};
    const floorPerRate: Record<string, RatePhase> = {};
    const durablePerRate: Record<string, RatePhase> = {};
    const details: Detail[] = [];
    for (const [i, rate] of rates.entries()) {
      ctx.rss.setPhase(`webhooks-${rate}`);
      // The row's rate in rounds, the first in roundOrder's reverse (the durable floor first, svc
      // last), the second in its order (svc first), so no side always meets the server after the
      // others' runs (its cost per execution grows with what it holds, FINDINGS session 26). The
      // low rate once, in order.
      const atTop = rate === top;
      const rounds = atTop ? p.rounds : 1;
      ctx.say(`webhooks: ${rounds} × ${p.webhookSec}s of runs started at ${rate}/s, svc, the floor and the durable floor with delivery`);
      const collected: Record<'svc' | 'floor' | 'durable', Collected[]> = { svc: [], floor: [], durable: [] };
      for (let k = 0; k < rounds; k++) {
        const suffix = `${rate}${rounds > 1 ? `-r${k}` : ''}`;
        const sides = [
          async () => collected.svc.push(await svcPhase(`webhooks-${suffix}`, rate, p.webhookSec, atTop)),
          async () => collected.floor.push(await floorPhase(`floor-webhooks-${suffix}`, rate, p.webhookSec, atTop, withDelivery)),
          async () =>
            collected.durable.push(await floorPhase(`durable-webhooks-${suffix}`, rate, p.webhookSec, atTop, durableWithDelivery)),
        ];
        for (const side of roundOrder(sides, atTop ? k ^ 1 : i)) await side();
      }
      // Each svc run has one delivery, generation 0 (no manual retries here).
      perRate[rate] = await report(rate, collected.svc, atTop ? (g) => deliveryWorkflowId(g.deliveryId!, 0) : undefined);
      const floorDelivery = atTop ? (g: Received) => floorDeliveryId(g.runId) : undefined;
      floorPerRate[rate] = await report(rate, collected.floor, floorDelivery);
      durablePerRate[rate] = await report(rate, collected.durable, floorDelivery);
      details.push(
        { title: `webhooks, runs offered at ${rate}/s: delivery p50 / p95 / p99`, value: describePhase(perRate[rate]) },
        {
          title: `webhooks, floor with delivery, runs offered at ${rate}/s: delivery p50 / p95 / p99`,
          value: describePhase(floorPerRate[rate]),
        },
        {
          title: `webhooks, durable floor with delivery, runs offered at ${rate}/s: delivery p50 / p95 / p99`,
          value: describePhase(durablePerRate[rate]),
        },
      );
    }
    const at = perRate[top];
    const floorAt = floorPerRate[top];
    const durableAt = durablePerRate[top];
    const row = ratioRow({
      id: 'webhooks.p95',
      title: `webhook delivery p95, runs offered at ${top}/s (½ floor)`,
      unit: 'ms',
      value: at.latency.p95,
      baseline: floor.latency.p95,
      baselineName: 'floor execute p95, local activity',
      target: { op: '<=', bound: 2, text: `≤ 2.00× at ≥ ${round(top * RATE_REACHED, 1)} events/s` },
      floor: { name: 'durable floor with delivery', value: durableAt.latency.p95 },
    });
    // The rate must be reached for the latency to count, the floor's as svc's.
    const reached = (r: RatePhase) => r.eventsPerSecond >= top * RATE_REACHED;
    const rows: Row[] = [
      {
        ...row,
        pass: row.pass && reached(at),
        note: reached(at) ? undefined : `only ${round(at.eventsPerSecond, 1)} events/s reached`,
        floor: row.floor && { ...row.floor, pass: row.floor.pass && reached(durableAt) },
      },
    ];
    details.push(
      {
        title: `webhooks at ${top}/s: svc delivery p95 ÷ floor-with-delivery p95`,
        value:
          `${round(at.latency.p95 / floorAt.latency.p95, 2)}× (${round(at.latency.p95, 1)} / ${round(floorAt.latency.p95, 1)} ms; ` +
          `events/s reached ${round(at.eventsPerSecond, 1)} / ${round(floorAt.eventsPerSecond, 1)})`,
      },
      {
        title: `webhooks at ${top}/s: svc delivery p95 ÷ durable-floor-with-delivery p95`,
        value:
          `${round(at.latency.p95 / durableAt.latency.p95, 2)}× (${round(at.latency.p95, 1)} / ${round(durableAt.latency.p95, 1)} ms; ` +
          `events/s reached ${round(at.eventsPerSecond, 1)} / ${round(durableAt.eventsPerSecond, 1)})`,
      },
      {
        title: `webhooks at ${top}/s, p50 / p95: committed → delivery started; → its first task picked up; → received (${SIDES})`,
        value: [at, floorAt, durableAt].map((r) => describeSplit(r.split!)).join(' | '),
      },
      {
        title: `webhooks at ${top}/s: CPU per event received, by process; cores kept busy over the phase, of ${os.cpus().length} (${SIDES})`,
        value: [at, floorAt, durableAt].map((r) => describeCpu(r.cpu!)).join(' | '),
      },
      { title: 'webhooks: signature failures; duplicates', value: `${receiver.badSignatures}; ${receiver.duplicates}` },
    );
    if (receiver.badSignatures) throw new Error(`${receiver.badSignatures} webhooks failed signature verification`);
    return {
      rows,
      details,
      raw: { rates: perRate, floorWithDelivery: floorPerRate, durableFloorWithDelivery: durablePerRate, duplicates: receiver.duplicates },
    };
  } finally {
    await receiver.stop();
  }
}

function describeSplit(s: DeliverySplit): string {
  return [s.toStarted, s.startedToPickedUp, s.pickedUpToReceived].map((l) => `${round(l.p50, 1)} / ${round(l.p95, 1)} ms`).join('; ');
}

/** `57.1 ms (Temporal server 24.3, worker 19.0, …); 1.94 cores` */
function describeCpu(c: PhaseCpu): string {
  return `${cpuText(c.msPerEvent)}; ${round(c.coresBusy, 2)} cores`;
}

function describePhase(r: RatePhase): string {
  return (
    `${round(r.latency.p50, 1)} / ${round(r.latency.p95, 1)} / ${round(r.latency.p99, 1)} ms over ${r.eventsReceived} events ` +
    `(reached ${round(r.startsPerSecond, 1)} starts/s, ${round(r.eventsPerSecond, 1)} events/s; ${r.unfinished} of ${r.runsStarted} runs unfinished)`
  );
}
