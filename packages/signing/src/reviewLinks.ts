import { createHmac, hkdfSync } from 'node:crypto';
import { safeEqual } from './hmac';

export interface ReviewLinkClaims {
  reviewId: string;
  /** The assignee the link was mailed to; recorded as `decided_by`. */
  email: string;
  /** Unix milliseconds after which the link is refused. */
  expiresAt: number;
}

export interface ReviewLinkSigner {
  sign(claims: ReviewLinkClaims): string;
  /** The claims of a well-formed, untampered, unexpired token for this review; otherwise null. */
  verify(token: string, reviewId: string, now?: number): ReviewLinkClaims | null;
  /** A form token bound to one link token, so a form post cannot be forged without the link. */
  formToken(token: string): string;
}

// Domain separation: this key and these MACs sign review links and nothing else.
const PURPOSE = 'svc review link v1';

const macWith = (key: Buffer) => (label: string, data: string) => createHmac('sha256', key).update(`${label}.${data}`).digest('base64url');

/**
 * Signs review links with a key derived (HKDF) from the service's encryption key. Links signed
 * under a previous encryption key still verify while a key rotation keeps that key.
 */
export function createReviewLinkSigner(masterKey: Buffer, previousKeys: readonly Buffer[] = []): ReviewLinkSigner {
  const macs = [masterKey, ...previousKeys].map((k) => macWith(Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), PURPOSE, 32))));
  const mac = macs[0];
  return {
    sign(claims) {
      const payload = Buffer.from(JSON.stringify({ r: claims.reviewId, e: claims.email, x: claims.expiresAt })).toString('base64url');
      return `${payload}.${mac('link', payload)}`;
    },
    verify(token, reviewId, now = Date.now()) {
      const [payload, sig, extra] = token.split('.');
      if (!payload || !sig || extra !== undefined || !macs.some((m) => safeEqual(sig, m('link', payload)))) return null;
      let parsed: { r?: unknown; e?: unknown; x?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      if (typeof parsed.r !== 'string' || typeof parsed.e !== 'string' || typeof parsed.x !== 'number') return null;
      if (parsed.r !== reviewId || parsed.x <= now) return null;
      return { reviewId: parsed.r, email: parsed.e, expiresAt: parsed.x };
    },
    formToken(token) {
      return mac('form', token);
    },
  };
}
