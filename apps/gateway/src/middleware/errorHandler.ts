import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@svc/config';
import { isDatabaseUnavailable, isStatementTimeout } from '@svc/db';
import { AppError } from '@svc/domain';
import { isTemporalUnavailable } from '@svc/temporal';
import { sendProblem } from '../http/problem';

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}`));
};

/**
 * The last handler: known errors become problems; PostgreSQL or Temporal out of reach is a
 * 503 the client may retry; anything else is logged and answered as 500. Problem types point
 * under `baseUrl` (the gateway's BASE_URL).
 */
export function errorHandler(logger: Logger, baseUrl: string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof AppError) {
      if (err.status >= 500) logger.warn({ requestId: res.locals.requestId, code: err.code }, err.message);
      sendProblem(res, err, baseUrl);
      return;
    }
    const away = isDatabaseUnavailable(err) || isStatementTimeout(err) ? 'database' : isTemporalUnavailable(err) ? 'temporal' : undefined;
    if (away) {
      logger.warn({ requestId: res.locals.requestId, method: req.method, path: req.path, away }, `${away} unavailable`);
      sendProblem(res, new AppError('unavailable', 'The service is briefly unavailable; retry the request'), baseUrl);
      return;
    }
    logger.error({ requestId: res.locals.requestId, method: req.method, path: req.path, err }, 'unhandled error');
    sendProblem(res, new AppError('internal_error', 'Something went wrong on our side; quote the request id if you contact us'), baseUrl);
  };
}
