import type { Config, Logger } from '@svc/config';
import type { DbHandle } from '@svc/db';
import { connectTemporalClient, createRunLauncher } from '@svc/temporal';
import type { GatewayDeps } from './deps';

/** config → db → Temporal client → the gateway's dependencies. */
export async function createGatewayDeps(config: Config, logger: Logger, db: DbHandle): Promise<GatewayDeps & { close(): Promise<void> }> {
  const { client, connection } = await connectTemporalClient(config);
  return {
    config,
    logger,
    prisma: db.prisma,
    launcher: createRunLauncher({ client, taskQueue: config.TEMPORAL_TASK_QUEUE }),
    readiness: {
      async database() {
        await db.pool.query('SELECT 1');
      },
      async temporal() {
        await connection.healthService.check({});
      },
    },
    async close() {
      await connection.close();
    },
  };
}
