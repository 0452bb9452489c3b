import { clearBacklog } from '../backlog';
import type { BenchContext } from '../context';
import { runsLoad } from '../context';
import { cpuMeter, cpuText, stackProcesses } from '../cpu';
import type { Tenant } from '../fixtures';
import { durableFloorStarts } from '../floor/client';
import { assertClean, fnLoad, httpLoad, rotate } from '../load';
import type { LoadResult } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { SdkBaseline } from '../sdk';
import { round, summarize } from '../stats';

/**
 * Starting a run: `POST /api/v1/workflows/{id}/runs` (no wait) through the gateway against
 * `client.workflow.start` of the same workflow, and beside them the durable floor's start (the
 * same SDK start behind an Express route that first writes the run's rows: what any HTTP API
 * that keeps its runs pays over the SDK's start; floor/durableApi.ts). Latency one request at a
 * time; throughput with `connections` callers in a closed loop, every process's CPU metered
 * over each load. Each side of each round runs in a workspace of its own, and the runs it
 * started that the worker has not finished after a grace period are terminated before the next
 * side (backlog.ts), so every side starts on an idle system.
 */
export async function startRunsScenario(ctx: BenchContext) {
  const { profile: p, stack } = ctx;
  ctx.rss.setPhase('start');
  const backlogs: Array<{ side: string; finished: number; terminated: number; waitedMs: number }> = [];

  /** One measured side in a fresh workspace, its backlog cleared afterwards. */
  const side = async (label: string, measure: (tenant: Tenant) => Promise<LoadResult>): Promise<LoadResult> => {
    const tenant = await ctx.newTenant(label);
    const r = await measure(tenant);
    if (p.clearBacklogs) {
      const b = await clearBacklog(ctx.db, ctx.temporal, tenant.workspaceId, p.backlogGraceMs, stack.assertAlive);
      backlogs.push({ side: label, ...b });
    }
    return r;
  };
  const api = (tenant: Tenant, o: { connections: number; amount?: number; durationSec?: number }) =>
    runsLoad(ctx, tenant, { wait: false, ...o });
  const sdkOf = (tenant: Tenant) => SdkBaseline.create(ctx.db, ctx.temporal, stack.taskQueue, tenant);
  /** The durable floor's start route for the tenant's workflow, registered outside any measurement. */
  const durableOf = async (tenant: Tenant) => durableFloorStarts(stack.durableFloorUrl, (await sdkOf(tenant)).template);
  const durable = (route: { url: string; body: string }, o: { connections: number; amount?: number; durationSec?: number }) =>
    httpLoad({ ...route, method: 'POST', headers: { 'content-type': 'application/json' }, ...o });
  // Every process's CPU over each throughput load, per start (the worker's and the server's
  // share include whatever of the started runs they executed meanwhile).
  const cpu = cpuMeter(stackProcesses(stack));
  const { metered } = cpu;

  ctx.say('start: warming up');
  await side('start-warmup', async (tenant) => {
    const sdk = await sdkOf(tenant);
    await sdk.prepare(p.warmup);
    await fnLoad(sdk.start, { concurrency: 1, amount: p.warmup });
    await durable(await durableOf(tenant), { connections: 1, amount: p.warmup });
    return api(tenant, { connections: 1, amount: p.warmup });
  });

  ctx.say(`start: latency, ${p.startLatencyAmount} sequential starts per side per round`);
  const one = { connections: 1, amount: p.startLatencyAmount };
  const latency = await rotate(p.rounds, {
    sdk: () =>
      side('start-latency-sdk', async (tenant) => {
        const sdk = await sdkOf(tenant);
        await sdk.prepare(p.startLatencyAmount);
        return fnLoad(sdk.start, { concurrency: 1, amount: p.startLatencyAmount });
      }),
    durable: () => side('start-latency-durable', async (tenant) => durable(await durableOf(tenant), one)),
    api: () => side('start-latency-api', (tenant) => api(tenant, one)),
  });

  ctx.say(`start: throughput, ${p.startThroughputSec}s of ${p.connections} concurrent callers per side per round`);
  // Enough prepared runs for the SDK's best case (its sequential latency, every caller busy).
  const sdkLatency = summarize(latency.sdk.latencies);
  const bestRate = (p.connections / Math.max(sdkLatency.p50, 0.5)) * 1000;
  const prepared = Math.min(Math.ceil(bestRate * p.startThroughputSec * 1.2) + 100, 60_000);
  const many = { connections: p.connections, durationSec: p.startThroughputSec };
  const throughput = await rotate(p.rounds, {
    sdk: () =>
      side('start-throughput-sdk', async (tenant) => {
        const sdk = await sdkOf(tenant);
        await sdk.prepare(prepared);
        const r = await metered('SDK start', () =>
          fnLoad(sdk.start, { concurrency: p.connections, durationSec: p.startThroughputSec, amount: prepared }),
        );
        await sdk.discardUnused();
        return r;
      }),
    durable: () =>
      side('start-throughput-durable', async (tenant) => {
        const route = await durableOf(tenant);
        return metered('durable floor start', () => durable(route, many));
      }),
    api: () => side('start-throughput-api', (tenant) => metered('API start', () => api(tenant, many))),
  });

  for (const [what, r] of [
    ['SDK start latency', latency.sdk],
    ['durable floor start latency', latency.durable],
    ['API start latency', latency.api],
    ['SDK start throughput', throughput.sdk],
    ['durable floor start throughput', throughput.durable],
    ['API start throughput', throughput.api],
  ] as const)
    assertClean(what, r);

  const l = {
    sdk: summarize(latency.sdk.latencies),
    durable: summarize(latency.durable.latencies),
    api: summarize(latency.api.latencies),
  };
  const rows: Row[] = [
    ratioRow({
      id: 'start.throughput',
      title: `start a run: throughput (${p.connections} callers)`,
      unit: '/s',
      value: throughput.api.perSecond,
      baseline: throughput.sdk.perSecond,
      baselineName: 'SDK workflow.start of svc runWorkflow',
      target: { op: '>=', bound: 0.8, text: '≥ 0.80×' },
      floor: { name: "durable floor's start", value: throughput.durable.perSecond },
    }),
  ];
  const underLoad = {
    api: summarize(throughput.api.latencies),
    durable: summarize(throughput.durable.latencies),
    sdk: summarize(throughput.sdk.latencies),
  };
  const cpuPerStart = cpu.perUnitBySide();
  const pair = (s: { p50: number; p99: number }) => `${round(s.p50, 1)} / ${round(s.p99, 1)} ms`;
  const finished = backlogs.filter((b) => b.side.startsWith('start-throughput'));
  const details: Detail[] = [
    {
      title: `start throughput, ${p.connections} callers: the durable floor's start (Express writes the run's rows, then the SDK start; against the SDK start)`,
      value: `${round(throughput.durable.perSecond, 1)} /s (${round(throughput.durable.perSecond / throughput.sdk.perSecond, 2)}×; svc's API against it ${round(throughput.api.perSecond / throughput.durable.perSecond, 2)}×)`,
    },
    {
      title: 'start a run, one at a time: p50 / p99 latency (API; durable floor; SDK)',
      value: `${pair(l.api)}; ${pair(l.durable)}; ${pair(l.sdk)}`,
    },
    {
      title: 'start throughput: p50 / p99 latency under load (API; durable floor; SDK)',
      value: `${pair(underLoad.api)}; ${pair(underLoad.durable)}; ${pair(underLoad.sdk)}`,
    },
    ...Object.entries(cpuPerStart).map(([side, perProcess]) => ({
      title: `CPU per start under load, ${p.connections} callers: ${side} (total; by process)`,
      value: cpuText(perProcess),
    })),
  ];
  if (finished.length)
    details.push({
      title: 'runs the worker finished in the grace period after a throughput side',
      value: finished
        .map((b) => `${b.side.replace('start-throughput-', '')}: ${b.finished} in ${round(b.waitedMs / 1000, 1)} s (${b.terminated} cut)`)
        .join('; '),
    });
  return {
    rows,
    details,
    raw: {
      latency: l,
      throughput: {
        api: { perSecond: throughput.api.perSecond, ok: throughput.api.ok, latency: underLoad.api },
        durable: { perSecond: throughput.durable.perSecond, ok: throughput.durable.ok, latency: underLoad.durable },
        sdk: { perSecond: throughput.sdk.perSecond, ok: throughput.sdk.ok, latency: underLoad.sdk },
      },
      cpuMsPerStart: cpuPerStart,
      backlogs,
    },
  };
}
