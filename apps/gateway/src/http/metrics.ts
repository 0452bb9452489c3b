import express from 'express';
import type { Express, RequestHandler } from 'express';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from '@svc/config';
import { AppError } from '@svc/domain';
import { safeEqual } from '@svc/signing';
import type { Logger } from '@svc/config';
import { routeOf } from '../middleware/accessLog';
import { errorHandler, notFound } from '../middleware/errorHandler';

export interface Metrics {
  registry: Registry;
  observe: RequestHandler;
}

/** Prometheus metrics for `/metrics`; one registry per app so tests can build several apps. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { version, commit } = buildInfo();
  new Gauge({
    name: 'svc_build_info',
    help: 'Always 1; the labels name the running build',
    labelNames: ['version', 'commit'] as const,
    registers: [registry],
  }).set({ version, commit: commit ?? 'unknown' }, 1);
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const observe: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      // The matched route pattern, never the raw path, so ids don't explode cardinality.
      end({ method: req.method, route: routeOf(req), status: String(res.statusCode) });
    });
    next();
  };
  return { registry, observe };
}

/** `GET /metrics`, behind `Authorization: Bearer <METRICS_TOKEN>` when a token is set. */
export function metricsRoute(metrics: Metrics, token: string | undefined): RequestHandler {
  return async (req, res) => {
    if (token !== undefined) {
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      if (!m || !safeEqual(m[1], token)) {
        throw new AppError('unauthenticated', 'Send the metrics token as "Authorization: Bearer <token>"', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

/** The app main.ts listens with on METRICS_ADDRESS: `/metrics` and nothing else (its problems point at the gateway's pages). */
export function createMetricsApp(metrics: Metrics, token: string | undefined, logger: Logger, baseUrl: string): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsRoute(metrics, token));
  app.use(notFound);
  app.use(errorHandler(logger, baseUrl));
  return app;
}
