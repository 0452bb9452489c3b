import type { RequestHandler } from 'express';
import { AppError } from '@svc/domain';

/**
 * The API is for servers. A request a page could make carries `Origin` or `Sec-Fetch-Site`, or
 * is a preflight: those are refused, and no CORS header is ever sent, so a key can't be used from
 * a page. A lone `Sec-Fetch-Mode` is accepted: Node's global fetch sends it from servers.
 */
export const refuseBrowsers: RequestHandler = (req, _res, next) => {
  if (req.method === 'OPTIONS' || req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) {
    next(new AppError('browser_requests_not_allowed', 'This API does not accept requests from browsers; call it from your server'));
    return;
  }
  next();
};
