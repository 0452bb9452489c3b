import type { Db } from '@svc/db';
import { INVITE_TTL_MS } from '../members/members';
import { LINK_REQUEST_WINDOW_MS, SIGN_IN_WINDOW_MS } from '../members/throttle';
import { IDEMPOTENCY_TTL_HOURS } from '../runs/startRun';

/** Rows deleted per table per pass: a long backlog is cleared over several passes, never in one long statement. */
const BATCH = 1_000;

/**
 * Outbox mail (no SMTP configured) is kept as long as an invitation link lasts, so `svc mail list`
 * shows every mail whose link may still work.
 */
export const OUTBOX_RETENTION_MS = INVITE_TTL_MS;

export interface SweepResult {
  idempotencyKeys: number;
  consoleSessions: number;
  signInLinks: number;
  signInFailures: number;
  signInLinkRequests: number;
  outboxEmails: number;
}

/**
 * Deletes rows that can no longer matter, a batch per table per pass; run by the reconciler
 * Schedule. Idempotency keys past their 24 h window (API starts and inbound triggers share the
 * table; an expired key already counts as new), console sessions a day after they expired or
 * were revoked, sign-in links a day after they expired, sign-in failures and link requests once
 * out of their throttle's window, outbox mail past its retention. Rate-limit rows are swept by
 * the gateways.
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
  const signInFailures = await db.$executeRaw`
    DELETE FROM sign_in_failures WHERE ctid IN (
      SELECT ctid FROM sign_in_failures WHERE at < now() - ${SIGN_IN_WINDOW_MS}::int * interval '1 millisecond' LIMIT ${BATCH})`;
  const signInLinkRequests = await db.$executeRaw`
    DELETE FROM sign_in_link_requests WHERE ctid IN (
      SELECT ctid FROM sign_in_link_requests WHERE at < now() - ${LINK_REQUEST_WINDOW_MS}::int * interval '1 millisecond' LIMIT ${BATCH})`;
  const outboxEmails = await db.$executeRaw`
    DELETE FROM outbox_emails WHERE ctid IN (
      SELECT ctid FROM outbox_emails WHERE created_at < now() - ${OUTBOX_RETENTION_MS}::int * interval '1 millisecond' LIMIT ${BATCH})`;
  return { idempotencyKeys, consoleSessions, signInLinks, signInFailures, signInLinkRequests, outboxEmails };
}
