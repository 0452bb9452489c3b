import type { Db } from '@svc/db';
import { IDEMPOTENCY_TTL_HOURS } from '../runs/startRun';

/** Rows deleted per table per pass: a long backlog is cleared over several passes, never in one long statement. */
const BATCH = 1_000;

export interface SweepResult {
  idempotencyKeys: number;
  consoleSessions: number;
  signInLinks: number;
}

/**
 * Deletes rows that can no longer matter (issue 14, housekeeping), a batch per table per pass;
 * run by the reconciler Schedule. Idempotency keys past their 24 h window (API starts and
 * inbound triggers share the table; an expired key already counts as new), console sessions a
 * day after they expired or were revoked, sign-in links a day after they expired. Rate-limit
 * rows are swept by the gateways, sign-in failures when new ones are recorded.
 */
export async function sweepExpired(db: Db): Promise<SweepResult> {
  const idempotencyKeys = await db.$executeRaw`
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) LIMIT ${BATCH})`;
  const consoleSessions = await db.$executeRaw`
    DELETE FROM console_sessions WHERE ctid IN (
      SELECT ctid FROM console_sessions WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day' LIMIT ${BATCH})`;
  const signInLinks = await db.$executeRaw`
    DELETE FROM sign_in_links WHERE ctid IN (
      SELECT ctid FROM sign_in_links WHERE expires_at < now() - interval '1 day' LIMIT ${BATCH})`;
  return { idempotencyKeys, consoleSessions, signInLinks };
}
