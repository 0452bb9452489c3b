import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { appLaunch } from '@svc/config';
import type { AppName } from '@svc/config';
import { createDb, migrate } from '@svc/db';
import type { DbHandle } from '@svc/db';
import {
  SEARCH_ATTRIBUTES,
  ensureTemporalCli,
  findFreePort,
  startAppProcess,
  startEmbeddedPostgres,
  startTemporalDevServer,
} from '@svc/devstack';
import type { AppProcess } from '@svc/devstack';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export type Say = (msg: string) => void;

export interface BenchStack {
  /** The bench's own database handle and Temporal client (an SDK user's, for the baselines). */
  db: DbHandle;
  temporal: Client;
  /** svc's run task queue, and the SDK floor's (floor/worker.ts) on the same server. */
  taskQueue: string;
  floorTaskQueue: string;
  /** The secret the SDK floor signs its webhooks with. */
  floorWebhookSecret: string;
  encryptionKey: string;
  apiUrl: string;
  /** The read row's bare Express route (bareRoute.ts). */
  bareUrl: string;
  pids: Record<AppName, number>;
  /** Throws when a process of the stack has died. */
  assertAlive(): void;
  stop(): Promise<void>;
}

/**
 * The bench's own stack, from the packages/devstack functions `npm start` and the tests use: a
 * fresh PostgreSQL and a Temporal dev server (`memory`, or `file`: a SQLite file, as `npm start`
 * runs it) in a temp dir on free ports; svc's worker and gateway started as `npm start` starts
 * them (appLaunch); the SDK floor's worker and the bare route beside them. Each process's output
 * goes to a log file in the temp dir, which `keepData` keeps.
 */
export async function startBenchStack(say: Say, o: { store: 'memory' | 'file'; keepData: boolean }): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  chmodSync(dataDir, 0o711); // traversable for the `postgres` user PostgreSQL runs as under root
  const stops: Array<() => Promise<unknown>> = [];
  const apps: AppProcess[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      for (const s of stops.reverse()) await s().catch((err: Error) => say(`stop failed: ${err.message}`));
      if (!o.keepData) rmSync(dataDir, { recursive: true, force: true });
    })());
  const startApp = async (name: string, entry: string, nodeFlags: string[], env: NodeJS.ProcessEnv) => {
    if (!existsSync(entry)) throw new Error(`${path.relative(REPO_ROOT, entry)} is missing: run \`npm run build\` first.`);
    const log = createWriteStream(path.join(dataDir, `${name}.log`));
    const app = await startAppProcess({ name, entry, nodeFlags, env, cwd: REPO_ROOT, onLine: (line) => log.write(`${line}\n`) });
    apps.push(app);
    stops.push(() => app.stop(30_000));
    return app;
  };

  try {
    const taken = new Set<number>();
    const port = async () => {
      const p = await findFreePort(undefined, { avoid: taken });
      taken.add(p);
      return p;
    };
    const [pgPort, temporalPort, apiPort, barePort] = [await port(), await port(), await port(), await port()];
    const cliPath = await ensureTemporalCli(say);
    say(`starting PostgreSQL and the Temporal dev server (${o.store}) in ${dataDir}`);
    const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: pgPort, log: say });
    stops.push(() => pg.stop());
    const temporal = await startTemporalDevServer({
      cliPath,
      port: temporalPort,
      headless: true,
      dbFile: o.store === 'file' ? path.join(dataDir, 'temporal.db') : undefined,
      searchAttributes: SEARCH_ATTRIBUTES,
      log: say,
      onServerLog: (line) => appendFileSync(path.join(dataDir, 'temporal.log'), `${line}\n`),
    });
    stops.push(() => temporal.stop());
    await migrate(pg.databaseUrl);

    const taskQueue = `svc-bench-${randomBytes(4).toString('hex')}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const encryptionKey = randomBytes(32).toString('hex');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: pg.databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: taskQueue,
      SVC_ENCRYPTION_KEY: encryptionKey,
      HOST: '127.0.0.1',
      BASE_URL: apiUrl,
      DATA_DIR: dataDir,
      // The operator's settings for a local webhook receiver: loopback, plain http.
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      OUTBOUND_ALLOW_HTTP: 'true',
      WORKER_METRICS_ADDRESS: '127.0.0.1:0',
    };
    delete env.PORT; // the gateway's alone
    const svcApp = (name: AppName, appEnv: NodeJS.ProcessEnv) => {
      const launch = appLaunch(name, appEnv);
      return startApp(name, path.join(REPO_ROOT, launch.entry), launch.nodeFlags, launch.env);
    };
    const floorTaskQueue = `${taskQueue}-floor`;
    const floorWebhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
    say('starting svc (worker, gateway), the SDK floor worker and the bare route');
    const worker = await svcApp('worker', env);
    const gateway = await svcApp('gateway', { ...env, PORT: String(apiPort) });
    await startApp('floor-worker', path.join(__dirname, 'floor', 'worker.js'), [], {
      ...process.env,
      FLOOR_ADDRESS: temporal.address,
      FLOOR_TASK_QUEUE: floorTaskQueue,
      FLOOR_DELIVERY_TASK_QUEUE: `${floorTaskQueue}-deliveries`,
      FLOOR_WEBHOOK_SECRET: floorWebhookSecret,
    });
    // With the gateway's node flags, so that only the work differs.
    const bareFlags = appLaunch('gateway', env).nodeFlags;
    await startApp('bare-route', path.join(__dirname, 'bareRoute.js'), bareFlags, { ...process.env, BARE_ROUTE_PORT: String(barePort) });

    const db = createDb(pg.databaseUrl, { max: 5 });
    stops.push(() => db.close());
    const connection = await Connection.connect({ address: temporal.address });
    stops.push(() => connection.close());
    return {
      db,
      temporal: new Client({ connection }),
      taskQueue,
      floorTaskQueue,
      floorWebhookSecret,
      encryptionKey,
      apiUrl,
      bareUrl: `http://127.0.0.1:${barePort}`,
      pids: { gateway: gateway.pid, worker: worker.pid },
      assertAlive() {
        const dead = apps.find((a) => a.process.hasExited());
        if (dead) throw new Error(`the ${dead.name} died during the bench:\n${dead.lastLines()}`);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
