import type { RequestHandler, Response } from 'express';
import type { Db } from '@svc/db';
import { AppError, authenticateApiKey, requireScope } from '@svc/domain';
import type { Principal, Scope } from '@svc/domain';

const BEARER = /^Bearer ([^\s]+)$/;

export function authenticate(db: Db): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    if (!match) {
      throw new AppError('unauthenticated', 'Send an API key as "Authorization: Bearer <key>"', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    try {
      res.locals.principal = await authenticateApiKey(db, match[1]);
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

export function scope(s: Scope): RequestHandler {
  return (_req, res, next) => {
    requireScope(principalOf(res), s);
    next();
  };
}
