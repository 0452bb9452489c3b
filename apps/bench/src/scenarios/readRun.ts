import type { BenchContext } from '../context';
import { apiCall, authHeaders, runsUrl } from '../context';
import { BENCH_INPUT } from '../fixtures';
import type { Tenant } from '../fixtures';
import { alternate, assertClean, httpLoad } from '../load';
import { ratioRow } from '../report';
import type { Detail, Row } from '../report';
import { round, summarize } from '../stats';

/**
 * Reading a run: `GET /api/v1/runs/{id}` (key lookup, rate limits, the read model) against a
 * bare Express route in the same gateway process that answers the same JSON (bareRoute.ts).
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
  const bytes = Buffer.byteLength(JSON.stringify(body));

  const api = (o: { durationSec?: number; amount?: number }) =>
    httpLoad({ url: apiUrl, headers: authHeaders(tenant.key), connections: p.connections, ...o });
  const bare = (o: { durationSec?: number; amount?: number }) => httpLoad({ url: bareUrl, connections: p.connections, ...o });

  ctx.say('read: warming up');
  await bare({ amount: p.warmup * 20 });
  await api({ amount: p.warmup * 20 });
  ctx.say(`read: ${p.readSec}s of ${p.connections} connections per side per round`);
  // A phase each, so a peak is told apart by what was running.
  const r = await alternate(
    p.rounds,
    () => (ctx.rss.setPhase('read: bare route'), bare({ durationSec: p.readSec })),
    () => (ctx.rss.setPhase('read: API'), api({ durationSec: p.readSec })),
  );
  assertClean('bare Express GET', r.baseline);
  assertClean('API GET /runs/{id}', r.service);

  const l = { bare: summarize(r.baseline.latencies), api: summarize(r.service.latencies) };
  const rows: Row[] = [
    ratioRow({
      id: 'read.throughput',
      title: `GET /runs/{id}: requests/s (${p.connections} conns)`,
      unit: '/s',
      value: r.service.perSecond,
      baseline: r.baseline.perSecond,
      baselineName: 'bare Express route',
      target: { op: '>=', bound: 0.35, text: '≥ 0.35×' },
    }),
  ];
  const details: Detail[] = [
    {
      title: 'GET /runs/{id}: p50 / p99 latency (API; bare)',
      value: `${round(l.api.p50, 2)} / ${round(l.api.p99, 2)} ms; ${round(l.bare.p50, 2)} / ${round(l.bare.p99, 2)} ms`,
    },
    { title: 'GET /runs/{id}: response body', value: `${bytes} bytes (same JSON from both)` },
  ];
  return {
    rows,
    details,
    raw: {
      api: { perSecond: r.service.perSecond, latency: l.api },
      bare: { perSecond: r.baseline.perSecond, latency: l.bare },
      bodyBytes: bytes,
    },
  };
}
