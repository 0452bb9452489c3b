import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@svc/config';

/** Probes arrive every few seconds from each load balancer and orchestrator: logged at debug. */
const PROBES = new Set(['/healthz', '/readyz']);

/** The matched route pattern (never the raw path with its ids), as the metrics label it. */
export function routeOf(req: Request): string {
  return req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
}

/**
 * One line per response: its Request-Id, method, path (never the query, which may carry a review
 * link's token), route, status and duration. No header is logged, so no credential can be.
 */
export function accessLog(logger: Logger): RequestHandler {
  const middleware = pinoHttp<IncomingMessage, ServerResponse>({
    logger,
    genReqId: (_req, res) => (res as Response).locals.requestId as string,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
    quietReqLogger: true,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
    },
    customLogLevel: (req, res, err) => {
      if (err || res.statusCode >= 500) return 'warn';
      return PROBES.has((req.url ?? '').split('?')[0]) ? 'debug' : 'info';
    },
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, { res: _res, ...val }: { res?: unknown }) => ({
      ...val,
      status: res.statusCode,
      route: routeOf(req as Request),
    }),
    // The status says it failed; the error's stack belongs in no log (errorHandler logs the cause).
    customErrorObject: (req, res, _err, { err: _stack, res: _res, ...val }: { err?: unknown; res?: unknown }) => ({
      ...val,
      status: res.statusCode,
      route: routeOf(req as Request),
    }),
  });
  return middleware as unknown as RequestHandler;
}
