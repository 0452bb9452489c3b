import { Prisma, rowsOf } from '@svc/db';
import type { SqlSource } from '@svc/db';
import { RATE_WINDOW_SECONDS } from '../workspaces/limits';

/**
 * svc's rate-limit counters: one row per counter (`key:<id>`, `ws:<id>`, `ip:<address>`,
 * `hookip:<address>`, `trg:<id>`) in `rate_limits`, each a fixed one-minute window shared by every
 * gateway instance: `points` counted in the window that ends at `expire` (ms since the epoch).
 */

/** One counter's window as a statement left it. */
export interface CounterState {
  quota: number;
  points: number;
  expire: number;
}

/**
 * The statement that takes points from counters: `rows` is a SELECT of (key, points, window end)
 * rows to add; a counter whose window ended starts again from the points taken. RETURNING points,
 * expire (as the counter now stands).
 */
export function takePointsSql(rows: Prisma.Sql, now: number): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO rate_limits (key, points, expire) ${rows}
    ON CONFLICT (key) DO UPDATE SET
      points = CASE WHEN rate_limits.expire <= ${now}::bigint THEN EXCLUDED.points ELSE rate_limits.points + EXCLUDED.points END,
      expire = CASE WHEN rate_limits.expire <= ${now}::bigint THEN EXCLUDED.expire ELSE rate_limits.expire END
    RETURNING points, expire`;
}

/** The end of a window that starts now. */
export const windowEndFrom = (now: number): number => now + RATE_WINDOW_SECONDS * 1000;

/** Takes one point from a counter: its points and window end after this request. */
export async function takePoint(db: SqlSource, key: string, now = Date.now()): Promise<{ points: number; expire: number }> {
  const [row] = await rowsOf<{ points: number; expire: string | number }>(
    db,
    takePointsSql(Prisma.sql`VALUES (${key}::varchar, 1, ${windowEndFrom(now)}::bigint)`, now),
  );
  return { points: row.points, expire: Number(row.expire) };
}

/** A counter's current window, without counting; null when it has none running. */
export async function peekCounter(db: SqlSource, key: string, now = Date.now()): Promise<{ points: number; expire: number } | null> {
  const [row] = await rowsOf<{ points: number; expire: string | number }>(
    db,
    Prisma.sql`SELECT points, expire FROM rate_limits WHERE key = ${key} AND expire > ${now}::bigint`,
  );
  return row ? { points: row.points, expire: Number(row.expire) } : null;
}

/** Gives points back to counters (never to a window about to end, where they would count in the next). */
export async function givePointsBack(db: SqlSource, keys: string[], points: number, notBefore: number): Promise<void> {
  await rowsOf(
    db,
    Prisma.sql`UPDATE rate_limits SET points = points - ${points}::int WHERE key = ANY(${keys}::text[]) AND expire > ${notBefore}::bigint`,
  );
}

/** Deletes counters whose window ended before `before`. */
export async function sweepCounters(db: SqlSource, before: number): Promise<void> {
  await rowsOf(db, Prisma.sql`DELETE FROM rate_limits WHERE expire < ${before}::bigint`);
}
