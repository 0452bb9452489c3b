import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createDb, migrate } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { ensureTemporalCli, findFreePort, SEARCH_ATTRIBUTES, startEmbeddedPostgres, startTemporalDevServer } from '@svc/devstack';
import type { EmbeddedPostgres, TemporalDevServer } from '@svc/devstack';
import { createSecretBox } from '@svc/signing';
import { apiCall } from '../../helpers/http';
import type { HttpAnswer } from '../../helpers/http';
import { spawnApp } from '../../helpers/processes';
import type { Spawned } from '../../helpers/processes';
import { tenantFactory } from '../../helpers/tenants';

const log = (msg: string) => process.stderr.write(`[faults] ${msg}\n`);
// The servers' own complaints while they are being broken are expected; FAULTS_VERBOSE=1 shows them.
const quiet = process.env.FAULTS_VERBOSE ? (line: string) => log(line) : () => undefined;

export interface AppProcess extends Spawned {
  url: string;
}

/**
 * A whole svc of its own for one fault test file: a durable PostgreSQL and a file-backed
 * Temporal dev server that can be stopped and started again on the same data and ports, and
 * gateways and workers as real processes (apps/<name>/dist/main.js) that can be killed.
 */
export interface FaultStack {
  env: Record<string, string>;
  db: DbHandle;
  temporal: Client;
  tenant: ReturnType<typeof tenantFactory>['tenant'];
  apply: ReturnType<typeof tenantFactory>['apply'];
  gateway(env?: Record<string, string>): Promise<AppProcess>;
  worker(env?: Record<string, string>): Promise<Spawned>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stopTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFaultStack(env: Record<string, string> = {}): Promise<FaultStack> {
  const cliPath = await ensureTemporalCli(log);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-faults-'));
  chmodSync(dataDir, 0o711); // traversable for the `postgres` user PostgreSQL runs as under root
  const pgPort = await findFreePort();
  const temporalPort = await findFreePort(undefined, { avoid: [pgPort] });

  let postgres: EmbeddedPostgres | undefined;
  let temporalServer: TemporalDevServer | undefined;
  const startPostgres = async () => {
    postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: pgPort, log, onServerLog: quiet });
  };
  const startTemporal = async () => {
    temporalServer = await startTemporalDevServer({
      cliPath,
      dbFile: path.join(dataDir, 'temporal.sqlite'),
      port: temporalPort,
      headless: true,
      searchAttributes: SEARCH_ATTRIBUTES,
      log,
      onServerLog: quiet,
    });
  };
  try {
    await Promise.all([startPostgres(), startTemporal()]);
    await migrate(postgres!.databaseUrl);
  } catch (err) {
    await Promise.allSettled([temporalServer?.stop(), postgres?.stop()]);
    throw err;
  }

  const encryptionKey = randomBytes(32);
  const baseEnv: Record<string, string> = {
    DATABASE_URL: postgres!.databaseUrl,
    TEMPORAL_ADDRESS: temporalServer!.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `svc-faults-${randomBytes(3).toString('hex')}`,
    SVC_ENCRYPTION_KEY: encryptionKey.toString('hex'),
    LOG_LEVEL: 'info',
    // Each worker its own metrics port (two run at once), whichever projects this run selected.
    WORKER_METRICS_ADDRESS: '127.0.0.1:0',
    ...env,
  };
  const db = createDb(postgres!.databaseUrl, { max: 5 });
  const connection = await Connection.connect({ address: temporalServer!.address });
  const temporal = new Client({ connection, namespace: 'default' });
  const apps: Spawned[] = [];
  let firstGatewayUrl = '';

  const stack: FaultStack = {
    env: baseEnv,
    db,
    temporal,
    ...tenantFactory(db, createSecretBox(encryptionKey), () => firstGatewayUrl),
    async gateway(extra = {}) {
      const port = await findFreePort();
      const url = `http://127.0.0.1:${port}`;
      const app = await spawnApp('gateway', { ...baseEnv, PORT: String(port), BASE_URL: url, ...extra });
      apps.push(app);
      firstGatewayUrl ||= url;
      return { ...app, url };
    },
    async worker(extra = {}) {
      const app = await spawnApp('worker', { ...baseEnv, ...extra });
      apps.push(app);
      return app;
    },
    startPostgres,
    async stopPostgres() {
      await postgres?.stop();
    },
    startTemporal,
    async stopTemporal() {
      await temporalServer?.stop();
    },
    async stop() {
      await Promise.all(apps.map((a) => a.stop('SIGKILL')));
      await connection.close();
      await db.close();
      await temporalServer?.stop();
      await postgres?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}

/** A call to one gateway's API with a key. */
export function api(url: string, key: string, method: string, p: string, body?: unknown): Promise<HttpAnswer> {
  return apiCall(url, method, p, { key, body });
}
