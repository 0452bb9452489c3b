import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** What one measured load gave: every request's latency (ms), counts and the achieved rate. */
export interface LoadResult {
  /** Latency of each successful request, ms. */
  latencies: number[];
  ok: number;
  failed: number;
  /** Status code → count (HTTP), for the failure message. */
  statuses: Record<string, number>;
  elapsedMs: number;
  /** Successful requests per second over the whole load. */
  perSecond: number;
}

export interface HttpLoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds; or `amount` requests in all. */
  durationSec?: number;
  amount?: number;
  /** Sees each response body (e.g. to collect run ids, or check a status). */
  onBody?: (status: number, body: string) => void;
}

function finish(latencies: number[], ok: number, failed: number, statuses: Record<string, number>, elapsedMs: number): LoadResult {
  return { latencies, ok, failed, statuses, elapsedMs, perSecond: (ok / elapsedMs) * 1000 };
}

/** An HTTP load from autocannon, run in this process; latencies are autocannon's own timings. */
export async function httpLoad(o: HttpLoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const request: autocannon.Request = { method: o.method ?? 'GET', headers: o.headers, body: o.body };
  if (o.onBody) {
    const onBody = o.onBody;
    request.onResponse = (status: number, body: string) => onBody(status, body);
  }
  let settle!: (r: { err: Error | null; result: autocannon.Result }) => void;
  const done = new Promise<{ err: Error | null; result: autocannon.Result }>((r) => (settle = r));
  const instance = autocannon(
    {
      url: o.url,
      connections: o.connections,
      timeout: 60,
      requests: [request],
      // autocannon refuses keys present with an undefined value
      ...(o.durationSec !== undefined ? { duration: o.durationSec } : {}),
      ...(o.amount !== undefined ? { amount: o.amount } : {}),
    },
    (err, result) => settle({ err, result }),
  );
  instance.on('response', (_client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) {
      ok++;
      latencies.push(ms);
    } else {
      failed++;
    }
  });
  const { err, result } = await done;
  if (err) throw err;
  const elapsedMs = performance.now() - started;
  failed += result.errors + result.timeouts;
  if (result.errors) statuses.error = result.errors;
  if (result.timeouts) statuses.timeout = result.timeouts;
  return finish(latencies, ok, failed, statuses, elapsedMs);
}

/**
 * The same closed loop for an in-process call (the SDK baselines): `concurrency` callers, each
 * calling `fn` again as soon as the last call returned, until `durationSec` has passed or
 * `amount` calls were issued, whichever comes first (given both, `amount` is a cap, e.g. the
 * SDK baseline's prepared runs); with `overallRate`, call i is not issued before i / overallRate
 * seconds: evenly spaced, where autocannon's own `overallRate` sends each second's quota at once.
 */
export async function fnLoad(
  fn: () => Promise<unknown>,
  o: { concurrency: number; durationSec?: number; amount?: number; overallRate?: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = o.durationSec !== undefined ? started + o.durationSec * 1000 : Infinity;
  const more = () => (o.amount === undefined || issued < o.amount) && performance.now() < deadline;
  const caller = async () => {
    while (more()) {
      const due = o.overallRate ? started + (issued / o.overallRate) * 1000 : 0;
      issued++;
      // Node's timers count from the event loop's cached time, so one may fire a few ms early on a
      // busy loop: wait out whatever is left.
      for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
        await new Promise((r) => setTimeout(r, wait));
      }
      const t = performance.now();
      try {
        await fn();
        latencies.push(performance.now() - t);
        ok++;
      } catch (err) {
        failed++;
        const name = (err as Error).name || 'Error';
        statuses[name] = (statuses[name] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, caller));
  return finish(latencies, ok, failed, statuses, performance.now() - started);
}

/** Refuses a load with failures: its figures would not describe the path we mean to measure. */
export function assertClean(what: string, r: LoadResult, tolerated = 0): void {
  if (r.failed > tolerated) throw new Error(`${what}: ${r.failed} of ${r.ok + r.failed} requests failed (${JSON.stringify(r.statuses)})`);
  if (r.ok === 0) throw new Error(`${what}: no request succeeded`);
}

/** Several loads of one side as one: all latencies, counts added, rate over the summed time. */
export function mergeLoads(parts: LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const ok = parts.reduce((a, p) => a + p.ok, 0);
  const elapsedMs = parts.reduce((a, p) => a + p.elapsedMs, 0);
  return {
    latencies: parts.flatMap((p) => p.latencies),
    ok,
    failed: parts.reduce((a, p) => a + p.failed, 0),
    statuses,
    elapsedMs,
    perSecond: (ok / elapsedMs) * 1000,
  };
}

/**
 * The order of the sides in round `round`. Rounds come in pairs, the second the first reversed,
 * so a cost that drifts during the measurement weighs on every side alike: the in-memory dev
 * server's cost per commit grows with the executions it holds (apps/bench FINDINGS, session 26),
 * and a side measured later on average paid more. Each pair starts one side further on, so no
 * side is always first.
 */
export function roundOrder<K>(names: readonly K[], round: number): K[] {
  const pair = Math.floor(round / 2);
  const order = names.map((_, j) => names[(pair + j) % names.length]);
  return round % 2 === 1 ? order.reverse() : order;
}

/** Measures several sides in `rounds` rounds, in roundOrder. */
export async function rotate<K extends string>(
  rounds: number,
  sides: Record<K, () => Promise<LoadResult>>,
): Promise<Record<K, LoadResult>> {
  const names = Object.keys(sides) as K[];
  const parts = new Map<K, LoadResult[]>(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    for (const name of roundOrder(names, i)) parts.get(name)!.push(await sides[name]());
  }
  return Object.fromEntries(names.map((n) => [n, mergeLoads(parts.get(n)!)])) as Record<K, LoadResult>;
}
