import { setTimeout as sleep } from 'node:timers/promises';
import type { RunView } from '@svc/domain';
import { EXIT } from '../usage';

/** Statuses a run never leaves. */
export const SETTLED_STATUSES: readonly string[] = ['succeeded', 'failed', 'cancelled'];

export interface RunChange {
  at: string;
  /** `run` for the run's status, else the step's key. */
  subject: string;
  status: string;
  /** A step's attempt count. */
  attempts?: number;
  duration_ms?: number | null;
}

export interface WatchedRun {
  run: RunView;
  changes: RunChange[];
}

/** One line per change, as `svc runs watch` prints them. */
export function changeLine(c: RunChange): string {
  if (c.subject === 'run') return `${c.at}  run ${c.status}`;
  const duration = c.duration_ms !== null && c.duration_ms !== undefined ? `, ${c.duration_ms} ms` : '';
  return `${c.at}  step ${c.subject} ${c.status} (attempt ${c.attempts}${duration})`;
}

/** The run's own change comes first, or last when it settles (its steps ended before it). */
function changesBetween(before: RunView | undefined, after: RunView, at: string): RunChange[] {
  const out: RunChange[] = [];
  const runChange: RunChange[] = before?.status !== after.status ? [{ at, subject: 'run', status: after.status }] : [];
  const seen = new Map((before?.steps ?? []).map((s) => [s.key, s]));
  for (const s of after.steps ?? []) {
    const was = seen.get(s.key);
    if (s.status === 'pending' && !was) continue;
    if (was && was.status === s.status && was.attempts === s.attempts) continue;
    out.push({ at, subject: s.key, status: s.status, attempts: s.attempts, duration_ms: s.duration_ms });
  }
  return SETTLED_STATUSES.includes(after.status) ? [...out, ...runChange] : [...runChange, ...out];
}

/**
 * Reads the run every `intervalMs` until it settles (succeeded, failed or cancelled), reporting
 * each change of its status or of a step's status or attempt count, the first read included.
 */
export async function followRun(
  read: () => Promise<RunView>,
  opts: { intervalMs: number; onChange?: (c: RunChange) => void; first?: RunView },
): Promise<WatchedRun> {
  const changes: RunChange[] = [];
  let previous: RunView | undefined;
  let current = opts.first ?? (await read());
  for (;;) {
    for (const c of changesBetween(previous, current, new Date().toISOString())) {
      changes.push(c);
      opts.onChange?.(c);
    }
    if (SETTLED_STATUSES.includes(current.status)) return { run: current, changes };
    await sleep(opts.intervalMs);
    previous = current;
    current = await read();
  }
}

/** 0 for a run that succeeded, 1 for one that failed or was cancelled (and one not settled yet, 0). */
export function runExitCode(run: Pick<RunView, 'status'>): number {
  return run.status === 'failed' || run.status === 'cancelled' ? EXIT.failure : EXIT.ok;
}
