import { clearBacklog } from '../backlog';
import type { BenchContext } from '../context';
import { runsLoad } from '../context';
import type { Tenant } from '../fixtures';
import { alternate, assertClean, fnLoad } from '../load';
import type { LoadResult } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { SdkBaseline } from '../sdk';
import { round, summarize } from '../stats';

/**
 * Starting a run: `POST /api/v1/workflows/{id}/runs` (no wait) through the gateway against
 * `client.workflow.start` of the same workflow. Latency one request at a time; throughput with
 * `connections` callers in a closed loop. Each side of each round runs in a workspace of its
 * own, and the runs it started that the worker has not finished after a grace period are
 * terminated before the next side (backlog.ts), so every side starts on an idle system.
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

  ctx.say('start: warming up');
  await side('start-warmup', async (tenant) => {
    const sdk = await sdkOf(tenant);
    await sdk.prepare(p.warmup);
    await fnLoad(sdk.start, { concurrency: 1, amount: p.warmup });
    return api(tenant, { connections: 1, amount: p.warmup });
  });

  ctx.say(`start: latency, ${p.startLatencyAmount} sequential starts per side per round`);
  const latency = await alternate(
    p.rounds,
    () =>
      side('start-latency-sdk', async (tenant) => {
        const sdk = await sdkOf(tenant);
        await sdk.prepare(p.startLatencyAmount);
        return fnLoad(sdk.start, { concurrency: 1, amount: p.startLatencyAmount });
      }),
    () => side('start-latency-api', (tenant) => api(tenant, { connections: 1, amount: p.startLatencyAmount })),
  );

  ctx.say(`start: throughput, ${p.startThroughputSec}s of ${p.connections} concurrent callers per side per round`);
  // Enough prepared runs for the SDK's best case (its sequential latency, every caller busy).
  const sdkLatency = summarize(latency.baseline.latencies);
  const bestRate = (p.connections / Math.max(sdkLatency.p50, 0.5)) * 1000;
  const prepared = Math.min(Math.ceil(bestRate * p.startThroughputSec * 1.2) + 100, 60_000);
  const throughput = await alternate(
    p.rounds,
    () =>
      side('start-throughput-sdk', async (tenant) => {
        const sdk = await sdkOf(tenant);
        await sdk.prepare(prepared);
        const r = await fnLoad(sdk.start, { concurrency: p.connections, durationSec: p.startThroughputSec, amount: prepared });
        await sdk.discardUnused();
        return r;
      }),
    () => side('start-throughput-api', (tenant) => api(tenant, { connections: p.connections, durationSec: p.startThroughputSec })),
  );

  for (const [what, r] of [
    ['SDK start latency', latency.baseline],
    ['API start latency', latency.service],
    ['SDK start throughput', throughput.baseline],
    ['API start throughput', throughput.service],
  ] as const)
    assertClean(what, r);

  const l = { sdk: summarize(latency.baseline.latencies), api: summarize(latency.service.latencies) };
  const rows: Row[] = [
    ratioRow({
      id: 'start.throughput',
      title: `start a run: throughput (${p.connections} callers)`,
      unit: '/s',
      value: throughput.service.perSecond,
      baseline: throughput.baseline.perSecond,
      baselineName: 'SDK workflow.start of svc runWorkflow',
      target: { op: '>=', bound: 0.8, text: '≥ 0.80×' },
    }),
  ];
  const underLoad = { api: summarize(throughput.service.latencies), sdk: summarize(throughput.baseline.latencies) };
  const finished = backlogs.filter((b) => b.side.startsWith('start-throughput'));
  const details: Detail[] = [
    {
      title: 'start a run, one at a time: p50 / p99 latency (API; SDK)',
      value: `${round(l.api.p50, 1)} / ${round(l.api.p99, 1)} ms; ${round(l.sdk.p50, 1)} / ${round(l.sdk.p99, 1)} ms`,
    },
    {
      title: 'start throughput: p50 / p99 latency under load (API; SDK)',
      value: `${round(underLoad.api.p50, 1)} / ${round(underLoad.api.p99, 1)} ms; ${round(underLoad.sdk.p50, 1)} / ${round(underLoad.sdk.p99, 1)} ms`,
    },
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
        api: { perSecond: throughput.service.perSecond, ok: throughput.service.ok, latency: underLoad.api },
        sdk: { perSecond: throughput.baseline.perSecond, ok: throughput.baseline.ok, latency: underLoad.sdk },
      },
      backlogs,
    },
  };
}
