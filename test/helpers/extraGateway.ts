import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createLogger } from '@svc/config';
import type { Config } from '@svc/config';
import type { DbHandle } from '@svc/db';
import { createApp, createGatewayDeps } from '@svc/gateway';
import type { TestStack } from './stack';

export interface ExtraGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * One more gateway on the same database, Temporal server and task queue as `stack`,
 * listening on another loopback address (e.g. `::1`, or `::ffff:127.0.0.1` for
 * IPv4-mapped peers) and optionally with other settings (e.g. TRUSTED_PROXY_CIDRS).
 * Wired by the gateway's own `createGatewayDeps`, exactly as main.ts does; `db` is another handle
 * on the same database when a test needs to watch this gateway's queries.
 */
export async function startExtraGateway(
  stack: TestStack,
  host: string,
  overrides: Partial<Config> = {},
  db: DbHandle = stack.db,
): Promise<ExtraGateway> {
  const config: Config = { ...stack.config, ...overrides, TEMPORAL_TASK_QUEUE: stack.taskQueue, BASE_URL: stack.url };
  const logger = createLogger({ name: 'test-extra-gateway', level: config.LOG_LEVEL });
  const deps = await createGatewayDeps(
    { ...config, SVC_ENCRYPTION_KEY: config.SVC_ENCRYPTION_KEY!, DATABASE_URL: config.DATABASE_URL! },
    logger,
    db,
  );
  const server: Server = await new Promise((resolve, reject) => {
    const s = createApp(deps).listen(0, host, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url =
    host.includes(':') && !host.startsWith('::ffff:') ? `http://[${host}]:${port}` : `http://${host.replace('::ffff:', '')}:${port}`;
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await deps.close();
    },
  };
}
