import type { Config, Logger } from '@svc/config';
import type { Db } from '@svc/db';
import type { RunLauncher } from '@svc/domain';

export interface Readiness {
  /** Resolves when the dependency answers; rejects otherwise. */
  database(): Promise<void>;
  temporal(): Promise<void>;
}

export interface GatewayDeps {
  config: Config;
  prisma: Db;
  launcher: RunLauncher;
  logger: Logger;
  readiness: Readiness;
}
