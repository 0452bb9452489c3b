import { request } from 'undici';
import type { BenchContext } from '../context';
import { authHeaders } from '../context';
import { durableFloorRun } from '../floor/client';
import { BENCH_INPUT } from '../fixtures';
import type { Tenant } from '../fixtures';
import { assertClean, fnLoad, rotate } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { SdkBaseline } from '../sdk';
import { round } from '../stats';

/** SDK-side runs written ahead per second of load: above any rate two cores reach. */
const SDK_RUNS_PER_SEC = 250;

/**
 * Runs finished per second: `finishCallers` concurrent `wait: true` callers in a closed loop
 * (each sends its next run as soon as the last one came back) against as many callers of the
 * floor's `client.workflow.execute`, of svc's own run workflow executed straight through the
 * SDK, and of the durable floor's `POST /runs` (floor/durableApi.ts). Every side is the same
 * loop (fnLoad): after `finishSec` no caller starts another run, and the runs in flight are
 * awaited and counted, so a side whose runs take longer than the window is still measured
 * (autocannon would drop them). svc's sides each have a workspace.
 */
export async function finishRunsScenario(ctx: BenchContext) {
  const { profile: p, stack, floor } = ctx;
  ctx.rss.setPhase('finish');
  const callers = p.finishCallers;
  const load = { concurrency: callers, durationSec: p.finishSec };
  let apiSucceeded = 0;
  let apiOther = 0;
  const api = (tenant: Tenant) => {
    const url = `${stack.apiUrl}/api/v1/workflows/${tenant.workflowId}/runs`;
    const body = JSON.stringify({ input: BENCH_INPUT, wait: true });
    return fnLoad(async () => {
      const res = await request(url, { method: 'POST', headers: authHeaders(tenant.key, true), body });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST …/runs answered ${res.statusCode}: ${text.slice(0, 200)}`);
      if ((JSON.parse(text) as { status: string }).status === 'succeeded') apiSucceeded++;
      else apiOther++;
    }, load);
  };
  const sdk = async (tenant: Tenant) => {
    const baseline = await SdkBaseline.create(ctx.db, ctx.temporal, stack.taskQueue, tenant);
    await baseline.prepare(SDK_RUNS_PER_SEC * p.finishSec + callers);
    const r = await fnLoad(baseline.execute, load);
    await baseline.discardUnused();
    return r;
  };
  const [apiTenant, sdkTenant] = [await ctx.newTenant('finish-api'), await ctx.newTenant('finish-sdk')];

  ctx.say(`finish: ${p.finishSec}s of ${callers} concurrent callers per side per round`);
  const r = await rotate(p.rounds, {
    floorLocal: () => fnLoad(floor.executeLocal, load),
    floorActivity: () => fnLoad(floor.executeActivity, load),
    durableFloor: () => fnLoad(durableFloorRun(stack.durableFloorUrl), load),
    sdk: () => sdk(sdkTenant),
    api: () => api(apiTenant),
  });
  assertClean(`floor execute (local activity), ${callers} callers`, r.floorLocal);
  assertClean(`floor execute (activity), ${callers} callers`, r.floorActivity);
  assertClean(`durable floor POST /runs, ${callers} callers`, r.durableFloor);
  assertClean(`SDK execute of runWorkflow, ${callers} callers`, r.sdk);
  assertClean(`API wait: true, ${callers} callers`, r.api);
  // Only runs that came back `succeeded` count as finished (a wait that timed out does not).
  const apiPerSecond = (apiSucceeded / r.api.elapsedMs) * 1000;

  const rows: Row[] = [
    ratioRow({
      id: 'finish.throughput',
      title: `runs finished/s (${callers} wait: true callers)`,
      unit: '/s',
      value: apiPerSecond,
      baseline: r.floorLocal.perSecond,
      baselineName: 'floor execute, local activity',
      target: { op: '>=', bound: 0.7, text: '≥ 0.70×' },
    }),
  ];
  const details: Detail[] = [
    {
      title: `runs finished/s, ${callers} callers: floor local activity; floor activity; SDK execute of svc runWorkflow`,
      value: `${round(r.floorLocal.perSecond, 1)}; ${round(r.floorActivity.perSecond, 1)}; ${round(r.sdk.perSecond, 1)} /s`,
    },
    {
      title: `runs finished/s, ${callers} callers: durable floor (Express, PostgreSQL, execute; against the floor)`,
      value: `${round(r.durableFloor.perSecond, 1)} /s (${round(r.durableFloor.perSecond / r.floorLocal.perSecond, 2)}×)`,
    },
    { title: `wait: true answers not yet succeeded, ${callers} callers`, value: String(apiOther) },
  ];
  return {
    rows,
    details,
    raw: {
      perSecond: {
        api: apiPerSecond,
        floorLocal: r.floorLocal.perSecond,
        floorActivity: r.floorActivity.perSecond,
        durableFloor: r.durableFloor.perSecond,
        sdk: r.sdk.perSecond,
      },
      apiNotSucceeded: apiOther,
    },
    floorPerSecond: r.floorLocal.perSecond,
  };
}
