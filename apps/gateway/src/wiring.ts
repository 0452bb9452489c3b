import type { Config, Logger } from '@svc/config';
import type { DbHandle } from '@svc/db';
import { connectTemporalClient, createRunControl, createRunLauncher } from '@svc/temporal';
import { createReviewLinkSigner } from '@svc/signing';
import type { GatewayDeps } from './deps';
import { createRateLimiter } from './ratelimit/limiter';

/** config → db → Temporal client → the gateway's dependencies. */
export async function createGatewayDeps(
  config: Config & { SVC_ENCRYPTION_KEY: Buffer },
  logger: Logger,
  db: DbHandle,
): Promise<GatewayDeps & { close(): Promise<void> }> {
  const { client, connection } = await connectTemporalClient(config);
  const rateLimiter = createRateLimiter({
    pool: db.pool,
    unauthenticatedPerMin: config.RATE_LIMIT_UNAUTHENTICATED_PER_MIN,
    hooksPerAddressPerMin: config.HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN,
    leaseMax: config.RATE_LIMIT_LEASE_MAX,
  });
  return {
    config,
    logger,
    prisma: db.prisma,
    sql: db.sql,
    launcher: createRunLauncher({ client, taskQueue: config.TEMPORAL_TASK_QUEUE }),
    control: createRunControl(client),
    reviewLinks: createReviewLinkSigner(config.SVC_ENCRYPTION_KEY, config.SVC_ENCRYPTION_KEY_PREVIOUS),
    readiness: {
      async database() {
        await db.pool.query('SELECT 1');
      },
      async temporal() {
        await connection.healthService.check({});
      },
    },
    rateLimiter,
    async close() {
      rateLimiter.close();
      await connection.close();
    },
  };
}
