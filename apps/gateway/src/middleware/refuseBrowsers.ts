import type { RequestHandler } from 'express';
import { AppError } from '@svc/domain';

/**
 * The API is for servers. Anything a browser adds (Origin, Sec-Fetch-*) and every
 * preflight is refused, and no CORS header is ever sent, so a key can't be used from a page.
 */
export const refuseBrowsers: RequestHandler = (req, _res, next) => {
  if (
    req.method === 'OPTIONS' ||
    req.headers.origin !== undefined ||
    req.headers['sec-fetch-mode'] !== undefined ||
    req.headers['sec-fetch-site'] !== undefined
  ) {
    next(new AppError('browser_requests_not_allowed', 'This API does not accept requests from browsers; call it from your server'));
    return;
  }
  next();
};
