import express from 'express';
import type { Express } from 'express';
import { buildOpenApiDocument } from '@svc/contract';
import { createMailer, problemTypes } from '@svc/domain';
import { definitionSchemaRoute } from './console/definitionSchema';
import { liveHubFor } from './console/live';
import { consoleRouter } from './console/router';
import type { GatewayDeps } from './deps';
import { createMetrics, metricsRoute } from './http/metrics';
import type { Metrics } from './http/metrics';
import { accessLog } from './middleware/accessLog';
import { authenticate } from './middleware/authenticate';
import { clientAddresses } from './middleware/clientAddress';
import { errorHandler, notFound } from './middleware/errorHandler';
import { bodyParserErrors } from './middleware/jsonBody';
import { rateLimits } from './middleware/rateLimit';
import { refuseBrowsers } from './middleware/refuseBrowsers';
import { requestId } from './middleware/requestId';
import { healthRoutes } from './routes/health';
import { reviewPageRoutes } from './routes/reviewPages';
import { hookRoutes } from './routes/hooks';
import { runRoutes } from './routes/runs';
import { webhookEndpointRoutes } from './routes/webhookEndpoints';
import { workflowRoutes } from './routes/workflows';
import { docsRoutes } from './routes/docs';
import { problemPageRoutes } from './routes/problemPages';
import { deprecationNotices } from './openapi/deprecation';
import { methodNotAllowed } from './openapi/methodNotAllowed';

/** The gateway as an Express app, without `listen`: main.ts and the tests both build it. */
/**
 * `metrics` is passed in when main.ts also serves it on METRICS_ADDRESS; the public app then
 * has no `/metrics` route.
 */
export function createApp(deps: GatewayDeps, metrics: Metrics = createMetrics()): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  const baseUrl = deps.config.BASE_URL;
  const problems = problemTypes(baseUrl);
  const openapi = buildOpenApiDocument({ baseUrl, problems });
  const openapi30 = JSON.stringify(buildOpenApiDocument({ baseUrl, problems, openapiVersion: '3.0.3' }));

  app.use(requestId);
  app.use(accessLog(deps.logger));
  // Deprecated operations (as the contract registers them) answer with Deprecation/Sunset/Link.
  app.use(deprecationNotices(openapi));
  app.use(metrics.observe);
  // Route modules add their routes to the app or the API router itself, not as routers of their
  // own: every request that passes a router pays for entering it (express's router state,
  // closures), and these were entered by every API request.
  healthRoutes(app, deps.readiness);
  if (!deps.config.METRICS_ADDRESS) app.get('/metrics', metricsRoute(metrics, deps.config.METRICS_TOKEN));

  const api = express.Router();
  // Rate limits (middleware/rateLimit.ts): per client address before a key is known,
  // then per key and per workspace.
  const addresses = clientAddresses(deps.config.TRUSTED_PROXY_CIDRS ?? []);
  const limits = rateLimits(deps.rateLimiter, addresses);
  api.use(limits.addressGate);
  api.use(refuseBrowsers);
  api.get('/openapi.json', limits.countAddress, (_req, res) => {
    res.json(openapi);
  });
  api.get('/openapi-3.0.json', limits.countAddress, (_req, res) => {
    res.type('application/json').send(openapi30);
  });
  api.use(authenticate(deps.sql, deps.rateLimiter.leases));
  api.use(limits.countRefused);
  api.use(limits.perKey);
  workflowRoutes(api, deps);
  runRoutes(api, deps);
  webhookEndpointRoutes(api, deps);
  // A documented path with an undocumented method: 405 + Allow (not 404).
  api.use(methodNotAllowed(openapi));
  app.use('/api/v1', api);
  // Inbound webhook triggers: no API key, the trigger's secret/signature
  // authenticate; no browser rule (senders are other services, whatever headers they add).
  app.use('/hooks', hookRoutes(deps, addresses));

  // Pages for people (assignees' browsers), hence outside /api/v1 and its browser refusal.
  app.use(reviewPageRoutes(deps));
  // The API reference for people (Swagger UI over the same document), no key, browsers welcome.
  app.use(docsRoutes(openapi));
  // The pages problem `type` URIs point at.
  app.use(problemPageRoutes(problems));
  // The web console for workspace members: sessions, never API keys.
  const mailer = createMailer({ smtpUrl: deps.config.SMTP_URL, from: deps.config.MAIL_FROM, logger: deps.logger, db: deps.prisma });
  const live = deps.live ?? liveHubFor(deps.config, deps.prisma);
  app.use('/console', consoleRouter({ ...deps, mailer, addresses, live }));
  // The definition format's JSON Schema, for the console's editor and for editors elsewhere.
  definitionSchemaRoute(app, deps.config);

  app.use(notFound);
  app.use(bodyParserErrors);
  app.use(errorHandler(deps.logger, baseUrl));
  return app;
}
