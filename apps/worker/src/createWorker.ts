import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config, Logger } from '@svc/config';
import type { Db } from '@svc/db';
import { createAddressPolicy, createGuardedDispatcher } from '@svc/domain';
import type { ReviewLinkSigner, SecretBox } from '@svc/signing';
import { createActivities, prebuiltWorkflowBundlePath, workflowsPath } from '@svc/temporal';
import type { WebhookRuntime } from '@svc/temporal';

export interface WorkerDeps {
  config: Config;
  prisma: Db;
  secretBox: SecretBox;
  logger: Logger;
  /** Outbound webhook delivery (createWebhookRuntime): guarded dispatcher, mailer, workflow starter. */
  webhooks: WebhookRuntime;
  /** Signs the review-page links mailed to assignees. */
  reviewLinks: ReviewLinkSigner;
  /** Tells waiting runs they were given a concurrency slot, and checks holders are alive. */
  temporalClient: Client;
}

export async function connectWorkerTemporal(config: Config): Promise<NativeConnection> {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  return NativeConnection.connect({
    address: config.TEMPORAL_ADDRESS,
    tls: config.TEMPORAL_TLS || undefined,
    apiKey: config.TEMPORAL_API_KEY,
  });
}

/** A worker for the run task queue: the run workflow plus every activity. Any number may run. */
export async function createWorker(deps: WorkerDeps, connection: NativeConnection): Promise<Worker> {
  const { config } = deps;
  const dispatcher = createGuardedDispatcher({
    policy: createAddressPolicy({ allowCidrs: config.OUTBOUND_ALLOW_CIDRS }),
  });
  const bundle = prebuiltWorkflowBundlePath();
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    // The build's bundle when there is one; otherwise bundle the sources now (slower start).
    ...(bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath }),
    activities: createActivities({
      prisma: deps.prisma,
      secretBox: deps.secretBox,
      dispatcher,
      webhooks: deps.webhooks,
      reviewNotices: { mailer: deps.webhooks.mailer, links: deps.reviewLinks, baseUrl: config.BASE_URL },
      temporal: { client: deps.temporalClient },
    }),
  });
}
