import type { Client } from '@temporalio/client';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import type { Config, Logger } from '@svc/config';
import type { Db, PreparedSql } from '@svc/db';
import { createAddressPolicy, createGuardedDispatcher } from '@svc/domain';
import type { ReviewLinkSigner, SecretBox } from '@svc/signing';
import {
  createDeliveryQueueActivities,
  createRunQueueActivities,
  createSvcMetrics,
  prebuiltWorkflowBundlePath,
  temporalTls,
  workflowsPath,
} from '@svc/temporal';
import type { WebhookRuntime } from '@svc/temporal';
import { sampleQueuedRuns } from './queuedGauge';
import { TRACED_WORKFLOW_INTERCEPTORS } from './tracing';
import type { WorkerTracing } from './tracing';

export interface WorkerDeps {
  config: Config;
  prisma: Db;
  /** Named statements on the same pool: a run's hot writes (the slot, its steps, its ending). */
  sql: PreparedSql;
  secretBox: SecretBox;
  logger: Logger;
  /** Outbound webhook delivery (createWebhookRuntime): guarded dispatcher, mailer, workflow starter. */
  webhooks: WebhookRuntime;
  /** Signs the review-page links mailed to assignees. */
  reviewLinks: ReviewLinkSigner;
  /** Tells waiting runs they were given a concurrency slot, and checks holders are alive. */
  temporalClient: Client;
}

/** The task queues' workers of one process, run and stopped together. */
export interface WorkerSet {
  run(): Promise<void>;
  shutdown(): void;
  /** Every Worker polls: false before run() and from a shutdown (or SIGTERM) on. */
  ready(): boolean;
}

export async function connectWorkerTemporal(config: Config): Promise<NativeConnection> {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  return NativeConnection.connect({
    address: config.TEMPORAL_ADDRESS,
    tls: temporalTls(config),
    apiKey: config.TEMPORAL_API_KEY,
  });
}

/**
 * The workers of one process, for the task queues of `config.WORKER_TASK_QUEUES` (or
 * `opts.queues`): the run task queue (run workflows, the slot reconciler and their activities)
 * and the delivery task queue (webhook deliveries), each with slots of its own, so a run backlog
 * never delays a webhook. Any number of such processes may run, each serving either queue or both.
 */
export async function createWorkers(
  deps: WorkerDeps,
  connection: NativeConnection,
  opts: { workflowBundle?: WorkerOptions['workflowBundle']; queues?: Config['WORKER_TASK_QUEUES']; tracing?: WorkerTracing } = {},
): Promise<WorkerSet> {
  const { config } = deps;
  const serves = opts.queues ?? config.WORKER_TASK_QUEUES;
  const dispatcher = createGuardedDispatcher({
    policy: createAddressPolicy({ allowCidrs: config.OUTBOUND_ALLOW_CIDRS }),
  });
  // On the Runtime's meter: the worker's Prometheus endpoint when main.ts installed one, else a no-op.
  const metrics = createSvcMetrics(Runtime.instance().metricMeter);
  const traced = opts.tracing;
  const prebuilt = prebuiltWorkflowBundlePath(Boolean(traced));
  // The build's bundle when there is one; otherwise bundle the sources now (slower start).
  const code = opts.workflowBundle
    ? { workflowBundle: opts.workflowBundle }
    : prebuilt
      ? { workflowBundle: { codePath: prebuilt } }
      : { workflowsPath, ...(traced ? { interceptors: { workflowModules: [TRACED_WORKFLOW_INTERCEPTORS] } } : {}) };
  const common: Omit<WorkerOptions, 'taskQueue'> = {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
    ...code,
  };
  if (traced) {
    common.sinks = traced.sinks;
    common.interceptors = { ...common.interceptors, activity: traced.interceptors.activity };
  }
  // What both queues' activities are built over.
  const shared = { prisma: deps.prisma, sql: deps.sql, secretBox: deps.secretBox, webhooks: deps.webhooks, metrics };
  const workers: Worker[] = [];
  if (serves.includes('runs')) {
    const activities = createRunQueueActivities({
      ...shared,
      dispatcher,
      reviewNotices: {
        mailer: deps.webhooks.mailer,
        links: deps.reviewLinks,
        // Read when a mail is sent: an embedded gateway may learn its address after the worker starts.
        get baseUrl() {
          return config.BASE_URL;
        },
      },
      temporal: { client: deps.temporalClient },
    });
    workers.push(await Worker.create({ ...common, taskQueue: config.TEMPORAL_TASK_QUEUE, activities }));
  }
  if (serves.includes('deliveries')) {
    const activities = createDeliveryQueueActivities(shared);
    workers.push(await Worker.create({ ...common, taskQueue: config.TEMPORAL_DELIVERY_TASK_QUEUE, activities }));
  }
  const stopAll = () => workers.forEach(stop);
  return {
    async run() {
      // The queued-runs gauge is reported where runs are run.
      const stopSampling = serves.includes('runs')
        ? sampleQueuedRuns(deps.prisma, metrics, (err) => deps.logger.warn({ err: err.message }, 'could not count queued runs'))
        : () => undefined;
      // One stopping (a signal, or a fatal error) stops the others too.
      await Promise.all(workers.map((w) => w.run().finally(stopAll))).finally(stopSampling);
    },
    shutdown: stopAll,
    ready: () => workers.every((w) => w.getState() === 'RUNNING'),
  };
}

function stop(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}
