import type { RequestHandler, Response } from 'express';
import type { SqlSource } from '@svc/db';
import { AppError, authenticateRequest, hashApiKey, requireScope } from '@svc/domain';
import type { Principal, Scope } from '@svc/domain';
import type { KeyLeases } from '../ratelimit/keyLeases';
import type { KeyCounts } from '../ratelimit/limiter';

const BEARER = /^Bearer ([^\s]+)$/;

/** The token of an `Authorization: Bearer <token>` header; null for any other header, or none. */
export function bearerToken(header: string | undefined): string | null {
  return (header && BEARER.exec(header)?.[1]) || null;
}

export function authenticate(db: SqlSource, leases: KeyLeases): RequestHandler {
  return async (req, res, next) => {
    const presented = bearerToken(req.headers.authorization);
    if (presented === null) {
      throw new AppError('unauthenticated', 'Send an API key as "Authorization: Bearer <key>"', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    const leaseId = hashApiKey(presented);
    try {
      // The key and both rate-limit counters in one statement; middleware/rateLimit.ts perKey judges them.
      // A request the key's lease covers reads the key without counting (ratelimit/keyLeases.ts).
      const now = Date.now();
      let lease = leases.claim(leaseId, now);
      // The lease is keyed by the key's hash, which the statement looks the key up by.
      const check = { now, keyHash: leaseId };
      let auth = await authenticateRequest(db, presented, { ...check, take: lease ? 0 : leases.sizeFor(leaseId, now) });
      if (lease && !lease.fits(auth.principal.limits)) {
        // The plan changed since the lease was taken: counted on its own, under the new figures.
        leases.drop(leaseId);
        lease = null;
        auth = await authenticateRequest(db, presented, { ...check, take: 1 });
      }
      res.locals.principal = auth.principal;
      // Without a lease the statement counted (authenticateRequest throws when it did not).
      const counts: KeyCounts | null = lease
        ? { lease }
        : auth.key && { leaseId, key: auth.key, workspace: auth.workspace, taken: auth.taken };
      res.locals.keyCounts = counts;
    } catch (err) {
      if (err instanceof AppError) {
        leases.drop(leaseId);
        throw new AppError(err.code, err.message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
      }
      throw err;
    }
    next();
  };
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

export function keyCountsOf(res: Response): KeyCounts {
  return res.locals.keyCounts as KeyCounts;
}

export function scope(s: Scope): RequestHandler {
  return (_req, res, next) => {
    requireScope(principalOf(res), s);
    next();
  };
}
