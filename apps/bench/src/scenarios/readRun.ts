import type { BenchContext } from '../context';
import { apiCall, authHeaders, runsUrl } from '../context';
import { cpuMeter, cpuText, stackProcesses } from '../cpu';
import { BENCH_INPUT } from '../fixtures';
import type { Tenant } from '../fixtures';
import { assertClean, httpLoad, rotate } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { round, summarize } from '../stats';

/**
 * Reading a run: `GET /api/v1/runs/{id}` (key lookup, rate limits, the read model) against a
 * bare Express route in a process of its own that answers the same JSON (bareRoute.ts), and
 * beside them the read floor: the same run and its steps read from PostgreSQL in one statement
 * by a hand-written Express route and answered as they are (floor/durableApi.ts), what any API
 * that reads its runs from the database per request pays. The three sides rotate, and every
 * process's CPU is metered over each load.
 */
export async function readRunScenario(ctx: BenchContext, tenant: Tenant) {
  const { profile: p, stack } = ctx;
  ctx.rss.setPhase('read');
  const run = await apiCall<{ id: string; status: string }>(ctx, 'POST', runsUrl(ctx, tenant), {
    key: tenant.key,
    body: { input: BENCH_INPUT, wait: true },
    expect: 201,
  });
  const apiUrl = `${stack.apiUrl}/api/v1/runs/${run.id}`;
  const body = await apiCall<unknown>(ctx, 'GET', apiUrl, { key: tenant.key, expect: 200 });
  await apiCall(ctx, 'PUT', `${stack.bareUrl}/fixture`, { body, expect: 204 });
  const bareUrl = `${stack.bareUrl}/runs/${run.id}`;
  const floorUrl = `${stack.durableFloorUrl}/svc-runs/${run.id}`;
  const bytes = Buffer.byteLength(JSON.stringify(body));
  const floorBytes = Buffer.byteLength(JSON.stringify(await apiCall<unknown>(ctx, 'GET', floorUrl, { expect: 200 })));

  const load = (url: string, headers?: Record<string, string>) => (o: { durationSec?: number; amount?: number }) =>
    httpLoad({ url, headers, connections: p.connections, ...o });
  const api = load(apiUrl, authHeaders(tenant.key));
  const bare = load(bareUrl);
  const floor = load(floorUrl);
  const cpu = cpuMeter(stackProcesses(stack));
  /** A side's load in a phase of its own (a peak is told apart by what was running), its CPU metered. */
  const measured = (side: string, get: typeof api) => () => {
    ctx.rss.setPhase(`read: ${side}`);
    return cpu.metered(side, () => get({ durationSec: p.readSec }));
  };

  ctx.say('read: warming up');
  for (const get of [bare, floor, api]) await get({ amount: p.warmup * 20 });
  ctx.say(`read: ${p.readSec}s of ${p.connections} connections per side per round`);
  const r = await rotate(p.rounds, {
    bare: measured('bare route', bare),
    floor: measured('read floor', floor),
    api: measured('API', api),
  });
  assertClean('bare Express GET', r.bare);
  assertClean('read floor GET', r.floor);
  assertClean('API GET /runs/{id}', r.api);

  const l = { bare: summarize(r.bare.latencies), floor: summarize(r.floor.latencies), api: summarize(r.api.latencies) };
  const pair = (s: { p50: number; p99: number }) => `${round(s.p50, 2)} / ${round(s.p99, 2)} ms`;
  const rows: Row[] = [
    ratioRow({
      id: 'read.throughput',
      title: `GET /runs/{id}: requests/s (${p.connections} conns)`,
      unit: '/s',
      value: r.api.perSecond,
      baseline: r.bare.perSecond,
      baselineName: 'bare Express route',
      target: { op: '>=', bound: 0.35, text: '≥ 0.35×' },
      floor: { name: 'read floor', value: r.floor.perSecond },
    }),
  ];
  const details: Detail[] = [
    {
      title: 'GET /runs/{id}: the read floor (Express reads the run and its steps in one statement; against the bare route)',
      value: `${round(r.floor.perSecond, 0)} /s (${round(r.floor.perSecond / r.bare.perSecond, 2)}×; svc's API against it ${round(r.api.perSecond / r.floor.perSecond, 2)}×)`,
    },
    { title: 'GET /runs/{id}: p50 / p99 latency (API; read floor; bare)', value: `${pair(l.api)}; ${pair(l.floor)}; ${pair(l.bare)}` },
    ...Object.entries(cpu.perUnitBySide()).map(([side, perProcess]) => ({
      title: `CPU per GET, ${p.connections} connections: ${side} (total; by process)`,
      value: cpuText(perProcess, 3),
    })),
    {
      title: 'GET /runs/{id}: response body',
      value: `${bytes} bytes (the same JSON from the bare route; the read floor's row ${floorBytes})`,
    },
  ];
  return {
    rows,
    details,
    raw: {
      api: { perSecond: r.api.perSecond, latency: l.api },
      floor: { perSecond: r.floor.perSecond, latency: l.floor },
      bare: { perSecond: r.bare.perSecond, latency: l.bare },
      cpuMsPerGet: cpu.perUnitBySide(),
      bodyBytes: bytes,
      floorBodyBytes: floorBytes,
    },
  };
}
