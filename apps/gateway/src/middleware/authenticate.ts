import type { RequestHandler, Response } from 'express';
import type { SqlSource } from '@svc/db';
import { AppError, authenticateRequest, requireScope } from '@svc/domain';
import type { AuthenticatedRequest, Principal, Scope } from '@svc/domain';
import { alongsideOf, keepAlongside } from './readAlongside';

const BEARER = /^Bearer ([^\s]+)$/;

export function authenticate(db: SqlSource): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    if (!match) {
      throw new AppError('unauthenticated', 'Send an API key as "Authorization: Bearer <key>"', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    try {
      // The key and both rate-limit counters in one statement; middleware/rateLimit.ts perKey judges them.
      // A route marked readAlongside has its read made in that statement too.
      const alongside = alongsideOf(res);
      const auth = await authenticateRequest(db, match[1], Date.now(), alongside);
      res.locals.principal = auth.principal;
      res.locals.keyCounters = { key: auth.key, workspace: auth.workspace };
      if (alongside) keepAlongside(res, auth.alongside);
    } catch (err) {
      if (err instanceof AppError)
        throw new AppError(err.code, err.message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
      throw err;
    }
    next();
  };
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

export function keyCountersOf(res: Response): Pick<AuthenticatedRequest, 'key' | 'workspace'> {
  return res.locals.keyCounters as Pick<AuthenticatedRequest, 'key' | 'workspace'>;
}

export function scope(s: Scope): RequestHandler {
  return (_req, res, next) => {
    requireScope(principalOf(res), s);
    next();
  };
}
