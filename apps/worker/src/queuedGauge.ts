import type { Db } from '@svc/db';
import type { SvcMetrics } from '@svc/temporal';

/** How often a worker counts the runs in line: one count over the small slot-line table. */
const SAMPLE_INTERVAL_MS = 5_000;

/**
 * Keeps `svc_runs_queued` current: the runs waiting in line for a concurrency slot, across all
 * workspaces. Every worker reports the same figure (aggregate with max, not sum). Returns a stop.
 */
export function sampleQueuedRuns(prisma: Db, metrics: SvcMetrics, onError: (err: Error) => void): () => void {
  const sample = () =>
    prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM run_slots WHERE NOT holding`.then(
      ([{ n }]) => metrics.setQueued(n),
      onError,
    );
  void sample();
  const timer = setInterval(() => void sample(), SAMPLE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
