import { tracing } from './tracing';
import { createLogger, loadConfig, requireAppSettings, signalReady, splitHostPort } from '@svc/config';
import { createDb } from '@svc/db';
import { configureSandbox } from '@svc/domain';
import { createApp } from './app';
import { createMetrics, createMetricsApp } from './http/metrics';
import { createGatewayDeps } from './wiring';

async function main(): Promise<void> {
  const logger = createLogger({ name: 'gateway', mixin: tracing?.logFields });
  const config = requireAppSettings(loadConfig());
  configureSandbox({ threads: config.GATEWAY_SANDBOX_THREADS });
  const db = createDb(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    onError: (err) => logger.warn({ err: err.message }, 'database connection error'),
  });
  const deps = await createGatewayDeps(config, logger, db, { traced: Boolean(tracing) });
  const metrics = createMetrics();
  const server = createApp(deps, metrics).listen(config.PORT, config.HOST, () => {
    logger.info({ url: config.BASE_URL, port: config.PORT, host: config.HOST }, 'gateway listening');
    signalReady();
  });
  // /metrics on its own address (a private interface), never on the public port.
  const metricsServer = config.METRICS_ADDRESS ? listenMetrics(config.METRICS_ADDRESS) : undefined;
  function listenMetrics(address: string) {
    const { host, port } = splitHostPort(address);
    return createMetricsApp(metrics, config.METRICS_TOKEN, logger, config.BASE_URL).listen(port, host, () => {
      logger.info({ host, port }, 'metrics listening');
    });
  }
  // Slightly above the 25 s `wait` so held requests can finish on a graceful stop.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;

  // Draining: /readyz answers 503 while everything else is served as before, so a load balancer
  // stops sending new requests; then the listener closes and held requests (`wait`) finish.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, drainMs: config.GATEWAY_DRAIN_MS }, 'gateway draining');
    deps.drain();
    setTimeout(() => process.exit(0), config.GATEWAY_DRAIN_MS + 35_000).unref();
    setTimeout(() => {
      logger.info('gateway stopping');
      server.close(() => {
        void deps
          .close()
          .then(() => db.close())
          .then(() => tracing?.shutdown())
          .finally(() => process.exit(0));
      });
      server.closeIdleConnections();
      metricsServer?.close();
    }, config.GATEWAY_DRAIN_MS);
  };
  // Every signal is handled (a repeated one must not kill a draining gateway); the first one stops it.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`gateway failed: ${(err as Error).message}\n`);
  process.exit(1);
});
