import type { Db } from '@svc/db';

// Failed sign-ins within the window: past these, sign-in is refused (even with the right
// password) until the window slides, per email and per client address.
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;
// Mailed sign-in links asked for in the console, per email whether or not it is a member's.
export const LINK_REQUEST_WINDOW_MS = 60 * 60_000;
export const MAX_LINK_REQUESTS_PER_EMAIL = 5;

export type Admission<T> = ({ admitted: true } & T) | { admitted: false; retryAfterSeconds: number };

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Admits a password sign-in, counted as a failure until `forgiveSignIn` takes it back, or refuses
 * it while the email or the client address has its limit of failures. One statement decides and
 * records under a lock per key (the migration's svc_sign_in_attempt), so concurrent guesses
 * cannot pass the limit together.
 */
export async function admitSignIn(db: Db, args: { email: string; address: string }): Promise<Admission<{ failureId: bigint }>> {
  const [row] = await db.$queryRaw<{ failure_id: bigint | null; retry_after_ms: number }[]>`
    SELECT failure_id, retry_after_ms FROM svc_sign_in_attempt(
      ${args.email}, ${args.address}, ${SIGN_IN_WINDOW_MS}::int, ${MAX_FAILURES_PER_EMAIL}::int, ${MAX_FAILURES_PER_ADDRESS}::int)`;
  return row!.failure_id === null
    ? { admitted: false, retryAfterSeconds: seconds(row!.retry_after_ms) }
    : { admitted: true, failureId: row!.failure_id };
}

/** The password was right: the attempt admitted as a failure was none. */
export async function forgiveSignIn(db: Db, failureId: bigint): Promise<void> {
  await db.signInFailure.deleteMany({ where: { id: failureId } });
}

/** Admits and records a request for a mailed sign-in link, or refuses it while the email has its limit. */
export async function admitLinkRequest(db: Db, email: string): Promise<Admission<object>> {
  const [row] = await db.$queryRaw<{ wait_ms: number }[]>`
    SELECT svc_sign_in_link_request(${email}, ${LINK_REQUEST_WINDOW_MS}::int, ${MAX_LINK_REQUESTS_PER_EMAIL}::int) AS wait_ms`;
  return row!.wait_ms === 0 ? { admitted: true } : { admitted: false, retryAfterSeconds: seconds(row!.wait_ms) };
}
