import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Every response carries `Request-Id`; the same id is in problem bodies and log lines. Made from
 * randomUUID, which draws on an entropy cache Node refills in batches: `randomBytes` per request
 * was a system call each, the gateway's largest single cost on `GET /runs/{id}` after the socket
 * writes (2% of its profile).
 */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = 'req_' + randomUUID().replaceAll('-', '').slice(0, 24);
  res.locals.requestId = id;
  res.setHeader('Request-Id', id);
  next();
};
