import type { BenchContext } from '../context';
import { CONTRACT_FLOOR_SHAPE, durableFloorRun } from '../floor/client';
import { runsLoad } from '../context';
import type { Tenant } from '../fixtures';
import { describeShape, historyShape } from '../history';
import { assertClean, fnLoad, rotate } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { SdkBaseline } from '../sdk';
import { round, summarize } from '../stats';
import type { LatencySummary } from '../stats';

/**
 * A whole run, start to result, one at a time: `POST …/runs` with `wait: true` for the one-step
 * transform workflow against the floor (`client.workflow.execute` of the hand-written workflow
 * with one local activity; and with one regular activity), and against svc's own run workflow
 * executed straight through the SDK (what the gateway adds on top of the workflow), and against
 * the durable floor (floor/durableApi.ts: the least a durable HTTP API on Temporal does), bare and
 * with svc's Temporal contract (the contract floor). Every API answer must be the run,
 * `succeeded`. One history of each kind is read and counted.
 */
export async function waitRunsScenario(ctx: BenchContext, tenant: Tenant) {
  const { profile: p, stack, floor } = ctx;
  ctx.rss.setPhase('wait');
  const sdk = await SdkBaseline.create(ctx.db, ctx.temporal, stack.taskQueue, tenant);
  let notSucceeded = 0;
  let lastRunId = '';
  const api = (amount: number) =>
    runsLoad(ctx, tenant, {
      wait: true,
      connections: 1,
      amount,
      onBody: (status, body) => {
        const run = JSON.parse(body) as { id: string; status: string };
        if (status === 201 && run.status !== 'succeeded') notSucceeded++;
        lastRunId = run.id;
      },
    });
  const sdkSide = async (amount: number) => {
    await sdk.prepare(amount);
    return fnLoad(sdk.execute, { concurrency: 1, amount });
  };
  const sides = (amount: number) => ({
    floorLocal: () => fnLoad(floor.executeLocal, { concurrency: 1, amount }),
    floorActivity: () => fnLoad(floor.executeActivity, { concurrency: 1, amount }),
    durableFloor: () => fnLoad(durableFloorRun(stack.durableFloorUrl), { concurrency: 1, amount }),
    contractFloor: () => fnLoad(durableFloorRun(stack.durableFloorUrl, { contract: true }), { concurrency: 1, amount }),
    sdk: () => sdkSide(amount),
    api: () => api(amount),
  });

  ctx.say('wait: warming up');
  await rotate(1, sides(Math.max(1, Math.round(p.warmup / 4))));
  ctx.say(`wait: ${p.waitAmount} sequential runs per side per round`);
  const r = await rotate(p.rounds, sides(p.waitAmount));
  assertClean('floor execute (local activity)', r.floorLocal);
  assertClean('floor execute (activity)', r.floorActivity);
  assertClean('durable floor POST /runs', r.durableFloor);
  assertClean('contract floor POST /contract-runs', r.contractFloor);
  assertClean('SDK execute of runWorkflow', r.sdk);
  assertClean('API wait: true', r.api);
  if (notSucceeded) throw new Error(`wait: true answered ${notSucceeded} runs that had not succeeded`);

  const l = {
    floorLocal: summarize(r.floorLocal.latencies),
    floorActivity: summarize(r.floorActivity.latencies),
    durableFloor: summarize(r.durableFloor.latencies),
    contractFloor: summarize(r.contractFloor.latencies),
    sdk: summarize(r.sdk.latencies),
    api: summarize(r.api.latencies),
  };
  const run = await ctx.db.prisma.run.findUniqueOrThrow({ where: { id: lastRunId }, select: { temporalWorkflowId: true } });
  // `wait: true` answers at the run's settling commit, a moment before its workflow task completes.
  await ctx.temporal.workflow.getHandle(run.temporalWorkflowId).result();
  const shapes = {
    api: await historyShape(ctx.temporal, run.temporalWorkflowId),
    sdk: await historyShape(ctx.temporal, sdk.lastExecutedId!),
    floorLocal: await historyShape(ctx.temporal, floor.lastLocalId!),
    floorActivity: await historyShape(ctx.temporal, floor.lastActivityId!),
  };
  const rows: Row[] = [
    ratioRow({
      id: 'wait.latency.p50',
      title: 'wait: true (1-step transform): p50',
      unit: 'ms',
      value: l.api.p50,
      baseline: l.floorLocal.p50,
      baselineName: 'floor execute, local activity',
      target: { op: '<=', bound: 1.5, text: '≤ 1.5×' },
      floor: { name: 'contract floor', value: l.contractFloor.p50 },
    }),
  ];
  const ms = (s: LatencySummary) => `${round(s.p50, 1)} / ${round(s.p95, 1)} / ${round(s.p99, 1)} ms`;
  const details: Detail[] = [
    { title: 'one at a time, p50 / p95 / p99: API wait: true', value: ms(l.api) },
    { title: 'one at a time, p50 / p95 / p99: SDK execute of svc runWorkflow', value: ms(l.sdk) },
    { title: 'one at a time, p50 / p95 / p99: floor execute, local activity', value: ms(l.floorLocal) },
    { title: 'one at a time, p50 / p95 / p99: floor execute, activity', value: ms(l.floorActivity) },
    {
      title: 'one at a time, p50 / p95 / p99: durable floor (Express, PostgreSQL, execute; its p50 against the floor)',
      value: `${ms(l.durableFloor)} (${round(l.durableFloor.p50 / l.floorLocal.p50, 2)}×)`,
    },
    {
      title: `one at a time, p50 / p95 / p99: contract floor (${CONTRACT_FLOOR_SHAPE}; its p50 against the floor)`,
      value: `${ms(l.contractFloor)} (${round(l.contractFloor.p50 / l.floorLocal.p50, 2)}×)`,
    },
    { title: 'history of one run: svc (wait: true)', value: describeShape(shapes.api) },
    { title: 'history of one run: svc runWorkflow through the SDK', value: describeShape(shapes.sdk) },
    { title: 'history of one run: floor, local activity', value: describeShape(shapes.floorLocal) },
    { title: 'history of one run: floor, activity', value: describeShape(shapes.floorActivity) },
  ];
  return { rows, details, raw: { latency: l, histories: shapes }, floorLatency: l.floorLocal };
}
