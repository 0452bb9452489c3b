import { request } from 'undici';
import type { BenchContext } from '../context';
import { authHeaders, runsUrl } from '../context';
import { cpuMeter, cpuText, perUnit, stackProcesses, totalMs } from '../cpu';
import type { MeteredLoad } from '../cpu';
import { API_FLOOR_SHAPE, apiFloorRun, CONTRACT_FLOOR_SHAPE, durableFloorRun } from '../floor/client';
import { BENCH_INPUT } from '../fixtures';
import type { Tenant } from '../fixtures';
import { assertClean, fnLoad, rotate } from '../load';
import type { LoadResult } from '../load';
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
 * SDK, and of the durable floor's `POST /runs`, bare, with svc's Temporal contract
 * (`/contract-runs`, floor/durableApi.ts) and with svc's API besides (the API floor,
 * `/api-runs/{id}`, floor/apiRoutes.ts), the row's floor. Every side is the same
 * loop (fnLoad): after `finishSec` no caller starts another run, and the runs in flight are
 * awaited and counted, so a side whose runs take longer than the window is still measured
 * (autocannon would drop them). svc's sides each have a workspace.
 */
export async function finishRunsScenario(ctx: BenchContext) {
  const { profile: p, stack, floor } = ctx;
  ctx.rss.setPhase('finish');
  const callers = p.finishCallers;
  const load = { concurrency: callers, durationSec: p.finishSec };
  // Where each side's runs cost the machine: every process's CPU over the side's loads, per run.
  // Each side's loads are kept in order: the server's cost of a run varies between a side's
  // rounds by more than the sides differ, and grows with the executions it holds (FINDINGS,
  // sessions 25 and 26), so the rounds are reported apart too.
  const cpu = cpuMeter(stackProcesses(stack));
  const { metered } = cpu;

  let apiSucceeded = 0;
  let apiOther = 0;
  const api = (tenant: Tenant) => {
    const url = runsUrl(ctx, tenant);
    const body = JSON.stringify({ input: BENCH_INPUT, wait: true });
    return metered('svc wait: true', () =>
      fnLoad(async () => {
        const res = await request(url, { method: 'POST', headers: authHeaders(tenant.key, true), body });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`POST …/runs answered ${res.statusCode}: ${text.slice(0, 200)}`);
        if ((JSON.parse(text) as { status: string }).status === 'succeeded') apiSucceeded++;
        else apiOther++;
      }, load),
    );
  };
  const sdk = async (tenant: Tenant) => {
    const baseline = await SdkBaseline.create(ctx.db, ctx.temporal, stack.taskQueue, tenant);
    await baseline.prepare(SDK_RUNS_PER_SEC * p.finishSec + callers);
    const r = await metered('SDK execute of svc runWorkflow', () => fnLoad(baseline.execute, load));
    await baseline.discardUnused();
    return r;
  };
  const [apiTenant, sdkTenant] = [await ctx.newTenant('finish-api'), await ctx.newTenant('finish-sdk')];
  const apiFloor = await apiFloorRun(stack.durableFloorUrl, 'finish');

  ctx.say(`finish: ${p.finishSec}s of ${callers} concurrent callers per side per round`);
  const r = await rotate(p.rounds, {
    floorLocal: () => metered('floor, local activity', () => fnLoad(floor.executeLocal, load)),
    floorActivity: () => metered('floor, activity', () => fnLoad(floor.executeActivity, load)),
    durableFloor: () => metered('durable floor', () => fnLoad(durableFloorRun(stack.durableFloorUrl), load)),
    contractFloor: () => metered('contract floor', () => fnLoad(durableFloorRun(stack.durableFloorUrl, { contract: true }), load)),
    apiFloor: () => metered('API floor', () => fnLoad(apiFloor, load)),
    sdk: () => sdk(sdkTenant),
    api: () => api(apiTenant),
  });
  const cpuPerRun = cpu.perUnitBySide();
  const rounds = Object.fromEntries([...cpu.bySide].map(([side, ls]) => [side, ls.map(sideRound)]));
  assertClean(`floor execute (local activity), ${callers} callers`, r.floorLocal);
  assertClean(`floor execute (activity), ${callers} callers`, r.floorActivity);
  assertClean(`durable floor POST /runs, ${callers} callers`, r.durableFloor);
  assertClean(`contract floor POST /contract-runs, ${callers} callers`, r.contractFloor);
  assertClean(`API floor POST /api-runs, ${callers} callers`, r.apiFloor);
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
      floor: { name: 'API floor', value: r.apiFloor.perSecond },
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
    {
      title: `runs finished/s, ${callers} callers: contract floor (${CONTRACT_FLOOR_SHAPE}; against the floor)`,
      value: `${round(r.contractFloor.perSecond, 1)} /s (${round(r.contractFloor.perSecond / r.floorLocal.perSecond, 2)}×)`,
    },
    {
      title: `runs finished/s, ${callers} callers: API floor (${API_FLOOR_SHAPE}; against the floor)`,
      value: `${round(r.apiFloor.perSecond, 1)} /s (${round(r.apiFloor.perSecond / r.floorLocal.perSecond, 2)}×)`,
    },
    { title: `wait: true answers not yet succeeded, ${callers} callers`, value: String(apiOther) },
    ...Object.entries(cpuPerRun).map(([side, perProcess]) => ({
      title: `CPU per finished run, ${callers} callers: ${side} (total; by process)`,
      value: cpuText(perProcess),
    })),
    {
      title: `each round in order, ${callers} callers: runs answered/s at CPU per run (of it the Temporal server's)`,
      value: Object.entries(rounds)
        .map(([side, rs]) => `${side}: ${rs.map(roundText).join(', ')}`)
        .join('; '),
    },
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
        contractFloor: r.contractFloor.perSecond,
        apiFloor: r.apiFloor.perSecond,
        sdk: r.sdk.perSecond,
      },
      apiNotSucceeded: apiOther,
      cpuMsPerRun: cpuPerRun,
      rounds,
    },
    floorPerSecond: r.floorLocal.perSecond,
  };
}

/** A load as its round is reported: runs answered per second, all CPU and the server's per run. */
function sideRound(l: MeteredLoad): SideRound {
  const perProcess = perUnit([l]);
  return { perSecond: l.perSecond, cpuMs: totalMs(perProcess), serverMs: perProcess['Temporal server'] ?? 0 };
}

/** One side's load in one round: runs answered per second, and the CPU per run. */
interface SideRound {
  perSecond: number;
  cpuMs: number;
  serverMs: number;
}

/** `55/s at 30.7 ms (11.2)` */
function roundText(r: SideRound): string {
  return `${round(r.perSecond, 0)}/s at ${round(r.cpuMs, 1)} ms (${round(r.serverMs, 1)})`;
}
