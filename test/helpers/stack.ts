import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createLogger, loadConfig } from '@svc/config';
import type { Config } from '@svc/config';
import { createDb } from '@svc/db';
import type { NotificationListener } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { createApp, createRateLimiter, liveHubFor } from '@svc/gateway';
import type { GatewayDeps } from '@svc/gateway';
import { listenForSettledRuns } from '@svc/domain';
import { createReviewLinkSigner, createSecretBox } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import {
  connectTemporalClient,
  createRunControl,
  createRunLauncher,
  createWebhookRuntime,
  ensureReconciler,
  reconcilerScheduleId,
  startDeliveryRelay,
  workflowsPath,
} from '@svc/temporal';
import { createWorkers } from '@svc/worker';
import type { WorkerSet } from '@svc/worker';
import type { DeliveryRelay } from '@svc/temporal';
import { greet } from './fixtures';
import { apiCall } from './http';
import { tenantFactory } from './tenants';
import type { ApiCallOptions, HttpAnswer } from './http';

/** Everything an integration test needs: a real gateway and worker on the real servers of globalSetup. */
export interface TestStack {
  url: string;
  config: Config;
  db: DbHandle;
  box: SecretBox;
  temporal: Client;
  /** The worker's client, on the in-process Workers' NativeConnection (as the worker's main.ts). */
  workerClient: Client;
  taskQueue: string;
  /** The gateway's listener for the runs its waits wait on (its own channel, as the gateway's wiring). */
  settleNotices: NotificationListener;
  tenant: ReturnType<typeof tenantFactory>['tenant'];
  apply: ReturnType<typeof tenantFactory>['apply'];
  api(method: string, path: string, opts?: ApiCallOptions): Promise<ApiResponse>;
  stopWorker(): Promise<void>;
  /** Starts the in-process worker again, for the queues given (default: WORKER_TASK_QUEUES). */
  startWorker(queues?: Config['WORKER_TASK_QUEUES']): Promise<void>;
  /** Runs `fn` with no in-process worker (the runs' workflows stay out of it), then starts it again. */
  withoutWorker<T>(fn: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
  /** What the gateway was built from (createApp), e.g. to build one of its routers again. */
  gatewayDeps: GatewayDeps;
}

export type ApiResponse = HttpAnswer;

/** The workflow bundle is built once per test run and shared by every test file. */
async function workflowBundlePath(): Promise<string> {
  const dir = process.env.SVC_TEST_DATA_DIR ?? path.join(require('node:os').tmpdir(), 'svc-test');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'workflow-bundle.js');
  if (!existsSync(file)) {
    const { code } = await bundleWorkflowCode({ workflowsPath, logger: undefined });
    writeFileSync(file, code);
  }
  return file;
}

export function quietTemporalLogs() {
  try {
    // Expected activity retries would otherwise flood the test output.
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL as 'ERROR') ?? 'ERROR') });
  } catch {
    // Installed already by an earlier test file in this process.
  }
}

export async function startStack(env: Record<string, string> = {}): Promise<TestStack> {
  quietTemporalLogs();
  const taskQueue = `svc-test-${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TEMPORAL_TASK_QUEUE: taskQueue,
    OUTBOUND_ALLOW_CIDRS: '',
    // Tests stop the in-process worker with steps held open: no grace to wait out.
    WORKER_SHUTDOWN_GRACE_MS: '0',
    ...env,
  });
  const logger = createLogger({ name: 'test', level: config.LOG_LEVEL });
  const db = createDb(config.DATABASE_URL!, { max: 20 });
  const box = createSecretBox(config.SVC_ENCRYPTION_KEY!, config.SVC_ENCRYPTION_KEY_PREVIOUS);
  // The gateway's own client (its retry settings included), as apps/gateway/src/wiring.ts makes it.
  const { client: temporal, connection } = await connectTemporalClient(config);

  const nativeConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS! });
  // The worker's own client on its Workers' connection, as apps/worker/src/main.ts makes it.
  const workerClient = new Client({ connection: nativeConnection, namespace: config.TEMPORAL_NAMESPACE });
  const bundle = readFileSync(await workflowBundlePath(), 'utf8');
  let worker: WorkerSet | undefined;
  let workerDone: Promise<void> | undefined;
  // Outbound webhooks: the worker's delivery runtime and its outbox relay (as apps/worker/src/main.ts).
  const webhooks = createWebhookRuntime({
    config,
    prisma: db.prisma,
    sql: db.sql,
    client: workerClient,
    taskQueue: config.TEMPORAL_DELIVERY_TASK_QUEUE,
    eagerStart: true,
    logger,
  });
  let relay: DeliveryRelay | undefined;
  const reviewLinks = createReviewLinkSigner(config.SVC_ENCRYPTION_KEY!, config.SVC_ENCRYPTION_KEY_PREVIOUS);
  async function startWorker(queues = config.WORKER_TASK_QUEUES) {
    if (worker) return;
    worker = await createWorkers(
      {
        config,
        prisma: db.prisma,
        sql: db.sql,
        secretBox: box,
        logger,
        webhooks,
        reviewLinks,
        temporalClient: workerClient,
      },
      nativeConnection,
      { workflowBundle: { code: bundle }, queues },
    );
    workerDone = worker.run();
    // As main.ts: the outbox relay runs where deliveries are served.
    if (queues.includes('deliveries')) {
      relay = startDeliveryRelay({ prisma: db.prisma, starter: webhooks.starter, intervalMs: config.WEBHOOK_DISPATCH_INTERVAL_MS, logger });
    }
  }
  async function stopWorker() {
    if (!worker) return;
    await relay?.stop();
    relay = undefined;
    worker.shutdown();
    await workerDone;
    worker = undefined;
  }
  await ensureReconciler(temporal, { taskQueue, intervalMs: config.RECONCILE_INTERVAL_MS });
  await startWorker();

  const rateLimiter = createRateLimiter({
    db: db.sql,
    unauthenticatedPerMin: config.RATE_LIMIT_UNAUTHENTICATED_PER_MIN,
    hooksPerAddressPerMin: config.HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN,
    leaseMax: config.RATE_LIMIT_LEASE_MAX,
  });
  // As the gateway's wiring: waits end at PostgreSQL's notice of the run settling.
  const settleNotices = listenForSettledRuns(config.DATABASE_URL!);
  await settleNotices.start();
  const live = liveHubFor(config, db.prisma);
  const gatewayDeps: GatewayDeps = {
    live,
    rateLimiter,
    settleNotices,
    config,
    logger,
    prisma: db.prisma,
    sql: db.sql,
    pooledSql: db.pooledSql,
    launcher: createRunLauncher({ client: temporal, taskQueue }),
    control: createRunControl(temporal),
    reviewLinks,
    readiness: {
      database: async () => {
        await db.pool.query('SELECT 1');
      },
      temporal: async () => {
        await connection.healthService.check({});
      },
    },
  };
  // Listening first, so the app is built with its real BASE_URL (the documents' server, problem type URIs).
  const server: Server = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.BASE_URL = url;
  server.on('request', createApp(gatewayDeps));

  const stack: TestStack = {
    url,
    config,
    db,
    box,
    temporal,
    workerClient,
    taskQueue,
    settleNotices,
    gatewayDeps,
    ...tenantFactory(db, box, () => url),
    api: (method, p, opts) => apiCall(url, method, p, opts),
    startWorker,
    stopWorker,
    async withoutWorker(fn) {
      await stopWorker();
      try {
        return await fn();
      } finally {
        await startWorker();
      }
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stopWorker();
      await temporal.schedule.getHandle(reconcilerScheduleId(taskQueue)).delete();
      webhooks.mailer.close();
      await nativeConnection.close();
      await connection.close();
      rateLimiter.close();
      await live.close();
      await settleNotices.close();
      await db.close();
    },
  };
  return stack;
}

/** A stack with one tenant and its `greet` workflow: what most API test files start from. */
export async function startGreetStack(env: Record<string, string> = {}) {
  const stack = await startStack(env);
  const { key, workspaceId } = await stack.tenant();
  const wfId = (await stack.apply(workspaceId, greet)).id;
  return { stack, key, workspaceId, wfId };
}
