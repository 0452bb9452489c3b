import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Every response carries `Request-Id`; the same id is in problem bodies and log lines. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = 'req_' + randomBytes(12).toString('hex');
  res.locals.requestId = id;
  res.setHeader('Request-Id', id);
  next();
};
