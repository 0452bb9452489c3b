import type { Config, Logger } from '@svc/config';
import type { DbHandle } from '@svc/db';
import { listenForSettledRuns } from '@svc/domain';
import { clientTracingInterceptors, connectTemporalClient, createRunControl, createRunLauncher } from '@svc/temporal';
import { createReviewLinkSigner } from '@svc/signing';
import type { GatewayDeps } from './deps';
import { liveHubFor } from './console/live';
import { createRateLimiter } from './ratelimit/limiter';

/** config → db → Temporal client → the gateway's dependencies. */
export async function createGatewayDeps(
  config: Config & { SVC_ENCRYPTION_KEY: Buffer; DATABASE_URL: string },
  logger: Logger,
  db: DbHandle,
  options: { traced?: boolean } = {},
): Promise<GatewayDeps & { drain(): void; close(): Promise<void> }> {
  // Traced: the workflows a request starts carry its trace.
  const { client, connection } = await connectTemporalClient(config, options.traced ? { interceptors: clientTracingInterceptors() } : {});
  let draining = false;
  const rateLimiter = createRateLimiter({
    db: db.sql,
    unauthenticatedPerMin: config.RATE_LIMIT_UNAUTHENTICATED_PER_MIN,
    hooksPerAddressPerMin: config.HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN,
    leaseMax: config.RATE_LIMIT_LEASE_MAX,
  });
  const noticesDown = (err: Error) =>
    logger.warn({ err: err.message }, 'run settle notices interrupted; waits answer through Temporal meanwhile');
  // A channel of this process's own: it hears the runs its own requests wait on, and no others.
  const settleNotices = listenForSettledRuns(config.DATABASE_URL, { onError: noticesDown });
  // Not listening only makes waits answer through Temporal; it retries on its own.
  await settleNotices.start().catch(noticesDown);
  const live = liveHubFor(config, db.prisma, (err) => logger.warn({ err: err.message }, 'console live updates interrupted'));
  return {
    config,
    logger,
    live,
    prisma: db.prisma,
    sql: db.sql,
    pooledSql: db.pooledSql,
    launcher: createRunLauncher({ client, taskQueue: config.TEMPORAL_TASK_QUEUE }),
    settleNotices,
    control: createRunControl(client),
    reviewLinks: createReviewLinkSigner(config.SVC_ENCRYPTION_KEY, config.SVC_ENCRYPTION_KEY_PREVIOUS),
    readiness: {
      async database() {
        await db.pool.query('SELECT 1');
      },
      async temporal() {
        await connection.healthService.check({});
      },
      draining: () => draining,
    },
    rateLimiter,
    drain() {
      draining = true;
    },
    async close() {
      rateLimiter.close();
      await live.close();
      await settleNotices.close();
      await connection.close();
    },
  };
}
