import express from 'express';
import type { Express } from 'express';
import { buildOpenApiDocument } from '@svc/contract';
import type { GatewayDeps } from './deps';
import { createMetrics } from './http/metrics';
import { authenticate } from './middleware/authenticate';
import { errorHandler, notFound } from './middleware/errorHandler';
import { bodyParserErrors } from './middleware/jsonBody';
import { refuseBrowsers } from './middleware/refuseBrowsers';
import { requestId } from './middleware/requestId';
import { healthRoutes } from './routes/health';
import { runRoutes } from './routes/runs';
import { workflowRoutes } from './routes/workflows';

/** The gateway as an Express app, without `listen`: main.ts and the tests both build it. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const metrics = createMetrics();
  const openapi = buildOpenApiDocument({ serverUrl: deps.config.BASE_URL });

  app.use(requestId);
  app.use(metrics.observe);
  app.use(healthRoutes(deps.readiness));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  const api = express.Router();
  api.use(refuseBrowsers);
  api.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  api.use(authenticate(deps.prisma));
  api.use(workflowRoutes(deps));
  api.use(runRoutes(deps));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(bodyParserErrors);
  app.use(errorHandler(deps.logger));
  return app;
}
