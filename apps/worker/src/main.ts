import { tracing } from './startTracing';
import { buildInfo, createLogger, loadConfig, requireAppSettings, signalReady } from '@svc/config';
import { createDb } from '@svc/db';
import { configureSandbox } from '@svc/domain';
import { createReviewLinkSigner, createSecretBox } from '@svc/signing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { clientTracingInterceptors, createWebhookRuntime, ensureReconciler, startDeliveryRelay } from '@svc/temporal';
import { connectWorkerTemporal, createWorkers } from './createWorker';
import { prometheusTelemetry } from './telemetry';
import { workerTracing } from './tracing';
import { freeLoopbackPort, listenWorkerHttp } from './workerHttp';

async function main(): Promise<void> {
  const logger = createLogger({ name: 'worker', mixin: tracing?.logFields });
  const config = requireAppSettings(loadConfig());
  configureSandbox({ threads: config.WORKER_SANDBOX_THREADS });
  // The SDK's own logs go through pino too, so a worker writes one JSON log stream.
  const sdkLevel: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  // The Runtime's Prometheus listener stays on loopback; WORKER_METRICS_ADDRESS serves it with the probes.
  const runtimeMetrics = `127.0.0.1:${await freeLoopbackPort()}`;
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => logger[sdkLevel[entry.level]]({ sdk: entry.meta }, entry.message)),
    telemetryOptions: prometheusTelemetry(runtimeMetrics),
  });
  const build = buildInfo();
  Runtime.instance()
    .metricMeter.createGauge('svc_build_info', 'int', undefined, 'Always 1; the labels name the running build')
    .set(1, { version: build.version, commit: build.commit ?? 'unknown' });
  const db = createDb(config.DATABASE_URL, {
    max: config.DATABASE_POOL_MAX,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    onError: (err) => logger.warn({ err: err.message }, 'database connection error'),
  });
  const connection = await connectWorkerTemporal(config);
  // A client too: activities start webhook delivery workflows, and the relay starts the outbox's.
  // On the worker's own connection: its calls go through the SDK's Rust core, one connection per
  // process and less CPU per call than a second, grpc-js connection.
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...(tracing ? { interceptors: clientTracingInterceptors() } : {}),
  });
  const webhooks = createWebhookRuntime({
    config,
    prisma: db.prisma,
    sql: db.sql,
    client,
    taskQueue: config.TEMPORAL_DELIVERY_TASK_QUEUE,
    // A delivery started here runs its first task in this process when it serves deliveries.
    eagerStart: config.WORKER_TASK_QUEUES.includes('deliveries'),
    logger,
  });
  const workers = await createWorkers(
    {
      config,
      prisma: db.prisma,
      sql: db.sql,
      secretBox: createSecretBox(config.SVC_ENCRYPTION_KEY, config.SVC_ENCRYPTION_KEY_PREVIOUS),
      reviewLinks: createReviewLinkSigner(config.SVC_ENCRYPTION_KEY, config.SVC_ENCRYPTION_KEY_PREVIOUS),
      logger,
      webhooks,
      temporalClient: client,
    },
    connection,
    { tracing: tracing && workerTracing(tracing) },
  );
  const http = await listenWorkerHttp({
    address: config.WORKER_METRICS_ADDRESS,
    runtimeMetricsUrl: `http://${runtimeMetrics}/metrics`,
    ready: () => workers.ready(),
    logger,
  });
  const serves = config.WORKER_TASK_QUEUES;
  // The reconciler's Schedule runs on the run queue; the outbox relay starts deliveries.
  if (serves.includes('runs')) {
    await ensureReconciler(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, intervalMs: config.RECONCILE_INTERVAL_MS });
  }
  const relay = serves.includes('deliveries')
    ? startDeliveryRelay({ prisma: db.prisma, starter: webhooks.starter, intervalMs: config.WEBHOOK_DISPATCH_INTERVAL_MS, logger })
    : undefined;
  // Temporal's Worker handles SIGINT/SIGTERM itself: it stops polling (/readyz turns 503) and gives
  // the activities in hand WORKER_SHUTDOWN_GRACE_MS to finish. Its Runtime listens for the first
  // signal only: a repeated one must not kill the worker meanwhile.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => logger.info({ signal }, 'worker stopping'));
  logger.info(
    {
      serves,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      deliveryTaskQueue: config.TEMPORAL_DELIVERY_TASK_QUEUE,
      namespace: config.TEMPORAL_NAMESPACE,
      metrics: `http://${config.WORKER_METRICS_ADDRESS}/metrics`,
    },
    'worker running',
  );
  signalReady();
  await workers.run();
  await relay?.stop();
  webhooks.mailer.close();
  http.close();
  await connection.close();
  await db.close();
  await tracing?.shutdown();
  logger.info('worker stopped');
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${(err as Error).message}\n`);
  process.exit(1);
});
