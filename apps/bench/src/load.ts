import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** What one load gave: each successful call's latency (ms), counts and the rate reached. */
export interface LoadResult {
  latencies: number[];
  ok: number;
  failed: number;
  /** Why calls failed: error message (or HTTP status) → count. */
  errors: Record<string, number>;
  elapsedMs: number;
  /** Successful calls per second over the whole load. */
  perSecond: number;
}

export interface FnLoadOptions {
  /** Callers at once; each calls again as soon as its last call returned. */
  concurrency: number;
  /** Stop issuing calls after this long; calls in flight are still awaited and counted. */
  seconds?: number;
  /** Or after this many calls (whichever comes first). */
  amount?: number;
  /** Paced: call i starts no earlier than i / rate seconds after the load began (never a burst). */
  rate?: number;
  /** Or once this is aborted. */
  signal?: AbortSignal;
}

/** A closed loop of calls, optionally paced; a call that throws counts as failed. */
export async function fnLoad(call: () => Promise<unknown>, o: FnLoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let issued = 0;
  const started = performance.now();
  const deadline = o.seconds === undefined ? Infinity : started + o.seconds * 1000;
  const more = () => (o.amount === undefined || issued < o.amount) && performance.now() < deadline && !o.signal?.aborted;
  const caller = async () => {
    while (more()) {
      const due = o.rate ? started + (issued / o.rate) * 1000 : 0;
      issued++;
      // A timer may fire a little early on a busy event loop: wait out whatever is left.
      for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
        await new Promise((r) => setTimeout(r, wait));
      }
      const t = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t);
      } catch (err) {
        const why = (err as Error).message.slice(0, 120);
        errors[why] = (errors[why] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, caller));
  return result(latencies, errors, performance.now() - started);
}

/**
 * `GET url` from autocannon for `seconds`, over `connections`: the read row's thousands of
 * requests a second, which autocannon sends with less CPU of the bench's than an HTTP client would.
 */
export async function getLoad(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const started = performance.now();
  const summary = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections, duration: seconds, headers, timeout: 30 }, (err, r) =>
      err ? reject(err) : resolve(r),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status === 200) latencies.push(ms);
      else errors[`HTTP ${status}`] = (errors[`HTTP ${status}`] ?? 0) + 1;
    });
  });
  if (summary.errors + summary.timeouts) errors['connection errors and timeouts'] = summary.errors + summary.timeouts;
  return result(latencies, errors, performance.now() - started);
}

function result(latencies: number[], errors: Record<string, number>, elapsedMs: number): LoadResult {
  const failed = Object.values(errors).reduce((a, b) => a + b, 0);
  return { latencies, ok: latencies.length, failed, errors, elapsedMs, perSecond: (latencies.length / elapsedMs) * 1000 };
}

/** Refuses a load with failures: its figures would not describe the path meant. */
export function assertClean(what: string, r: LoadResult): void {
  if (r.failed > 0) throw new Error(`${what}: ${r.failed} of ${r.ok + r.failed} calls failed (${JSON.stringify(r.errors)})`);
  if (r.ok === 0) throw new Error(`${what}: no call succeeded`);
}
