import { createLogger, loadConfig } from '@svc/config';
import type { Config } from '@svc/config';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { readStackFile } from '@svc/devstack';
import { createSecretBox } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import { connectTemporalClient } from '@svc/temporal';
import type { Client } from '@temporalio/client';
import { stackDataDir } from './repositoryRoot';

export interface CliContext {
  config: Config;
  /** The database, connected on first use. */
  readonly db: DbHandle;
  box(): SecretBox;
  /** A Temporal client, connected on first use (only commands that message runs need it). */
  temporal(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * The CLI talks to the same database and Temporal as the running stack: explicit
 * environment first, otherwise the addresses `npm start` recorded in DATA_DIR/stack.json,
 * found from any directory inside the repository.
 */
export function openContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const dataDir = stackDataDir(env);
  const stack = readStackFile(dataDir);
  const merged: NodeJS.ProcessEnv = {
    ...env,
    DATA_DIR: dataDir,
    DATABASE_URL: env.DATABASE_URL ?? stack?.databaseUrl,
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS ?? stack?.temporalAddress,
    TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE ?? stack?.temporalNamespace,
    SVC_ENCRYPTION_KEY: env.SVC_ENCRYPTION_KEY ?? stack?.encryptionKey,
    BASE_URL: env.BASE_URL ?? stack?.apiUrl,
    TEMPORAL_UI_URL: env.TEMPORAL_UI_URL ?? stack?.temporalUiUrl ?? undefined,
  };
  const config = loadConfig(merged);
  const logger = createLogger({ name: 'svc', level: 'warn' });
  let db: DbHandle | undefined;
  let temporal: Promise<Awaited<ReturnType<typeof connectTemporalClient>>> | undefined;
  return {
    config,
    // Opened on first use: commands that need no database (validate) work without a stack.
    get db() {
      if (!config.DATABASE_URL) {
        throw new Error('No database: set DATABASE_URL, or start the local stack with `npm start` first');
      }
      db ??= createDb(config.DATABASE_URL, { max: 2, onError: (err) => logger.warn({ err: err.message }, 'database error') });
      return db;
    },
    box() {
      if (!config.SVC_ENCRYPTION_KEY) throw new Error('SVC_ENCRYPTION_KEY is not set (and no stack.json provides one)');
      return createSecretBox(config.SVC_ENCRYPTION_KEY, config.SVC_ENCRYPTION_KEY_PREVIOUS);
    },
    async temporal() {
      if (!config.TEMPORAL_ADDRESS) throw new Error('No Temporal: set TEMPORAL_ADDRESS, or start the local stack with `npm start` first');
      temporal ??= connectTemporalClient(config);
      return (await temporal).client;
    },
    async close() {
      if (temporal) await (await temporal).connection.close();
      await db?.close();
    },
  };
}
