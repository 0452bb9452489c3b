import type { SecretBox } from '@svc/signing';

/**
 * A sealed secret that can be rotated with an overlap: after a rotation the previous one stays
 * valid until `previousExpiresAt`, so senders and receivers can switch over without a gap.
 * Webhook endpoint secrets and inbound trigger secrets (§10) both work this way.
 */
export interface RotatingSecret {
  currentEnc: string;
  previousEnc: string | null;
  previousExpiresAt: Date | null;
}

/**
 * The columns after a rotation at `now` (`context`: the secret's sealed context, the same for
 * both, since the current ciphertext moves to the previous column as it is): the fresh secret sealed, the current one kept as the
 * previous one until `now + overlapMs`. A rotation during an overlap drops the older previous
 * secret, so at most two are ever valid.
 */
export function rotateSecret(
  box: SecretBox,
  currentEnc: string,
  fresh: string,
  args: { now: Date; overlapMs: number; context: string },
): RotatingSecret & { previousExpiresAt: Date } {
  return {
    currentEnc: box.seal(fresh, args.context),
    previousEnc: currentEnc,
    previousExpiresAt: new Date(args.now.getTime() + args.overlapMs),
  };
}

/** Whether a previous secret with this expiry is still valid. */
export function previousInForce(previousExpiresAt: Date | null, now = new Date()): previousExpiresAt is Date {
  return previousExpiresAt !== null && previousExpiresAt.getTime() > now.getTime();
}

/** The secrets valid now, newest first (the previous one only while its overlap lasts). */
export function secretsInForce(box: SecretBox, s: RotatingSecret, context: string, now = new Date()): string[] {
  const out = [box.open(s.currentEnc, context)];
  if (s.previousEnc && previousInForce(s.previousExpiresAt, now)) out.push(box.open(s.previousEnc, context));
  return out;
}
