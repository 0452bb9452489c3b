import type { Db } from '@svc/db';

// Failed sign-ins within the window: past these, sign-in is refused (even with the right
// password) until the window slides, per email and per client address.
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

export async function signInThrottled(db: Db, args: { email: string; address: string }): Promise<boolean> {
  const since = new Date(Date.now() - SIGN_IN_WINDOW_MS);
  const [byEmail, byAddress] = await Promise.all([
    db.signInFailure.count({ where: { email: args.email, at: { gte: since } } }),
    db.signInFailure.count({ where: { address: args.address, at: { gte: since } } }),
  ]);
  return byEmail >= MAX_FAILURES_PER_EMAIL || byAddress >= MAX_FAILURES_PER_ADDRESS;
}

export async function recordSignInFailure(db: Db, args: { email: string; address: string }): Promise<void> {
  await db.signInFailure.create({ data: args });
  // Old rows are of no further use.
  await db.signInFailure.deleteMany({ where: { at: { lt: new Date(Date.now() - SIGN_IN_WINDOW_MS) } } });
}
