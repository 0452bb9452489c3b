import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_PROCESSES, loadConfig } from '@svc/config';
import { migrate } from '@svc/db';
import {
  SEARCH_ATTRIBUTES,
  describeExit,
  ensureTemporalCli,
  findFreePort,
  spawnManaged,
  startEmbeddedPostgres,
  startTemporalDevServer,
  type EmbeddedPostgres,
  type ManagedProcess,
  type TemporalDevServer,
} from '@svc/devstack';

/**
 * The bench's own stack, from the same packages/devstack functions as `npm start` and the tests:
 * a fresh PostgreSQL cluster (durable, as `npm start` runs it) and a Temporal dev server (in
 * memory by default, see BenchStackOptions.temporalStore), both in a temp dir on free ports;
 * then the built worker and gateway as separate processes with their default settings, so
 * their memory can be read from outside, and the floor baseline's worker beside them on a task
 * queue of its own, with the durable floor's API in front of it. Nothing here binds a fixed port.
 */

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const GATEWAY_MAIN = path.join(REPO_ROOT, 'apps', 'gateway', 'dist', 'main.js');
const WORKER_MAIN = path.join(REPO_ROOT, 'apps', 'worker', 'dist', 'main.js');
/** The bare Express route of the read baseline, in a process of its own (bareRoute.ts). */
const BARE_ROUTE = path.join(__dirname, 'bareRoute.js');
/** The floor baseline's own worker (floor/worker.ts). */
const FLOOR_WORKER = path.join(__dirname, 'floor', 'worker.js');
/** The durable floor's API (floor/durableApi.ts), running its runs on the floor worker. */
const DURABLE_FLOOR_API = path.join(__dirname, 'floor', 'durableApi.js');

export interface AppProcess {
  name: string;
  pid: number;
  logFile: string;
  proc: ManagedProcess;
}

export interface BenchStack {
  dataDir: string;
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** The floor worker's task queue (floor/workflows.ts), on the same server. */
  floorTaskQueue: string;
  /** The floor worker's second task queue: its webhook deliveries (floorDelivery). */
  floorDeliveryTaskQueue: string;
  /** The secret the floor signs its webhooks with (the receiver checks them with it). */
  floorWebhookSecret: string;
  encryptionKey: string;
  /** The gateway's API base URL (http://127.0.0.1:port). */
  apiUrl: string;
  /** The bare Express route, in a process of its own (http://127.0.0.1:port). */
  bareUrl: string;
  /** The durable floor's API (http://127.0.0.1:port): `POST /runs`, `/contract-runs`, `/svc-starts` (floor/durableApi.ts). */
  durableFloorUrl: string;
  gateway: AppProcess;
  worker: AppProcess;
  bare: AppProcess;
  floor: AppProcess;
  durableFloor: AppProcess;
  /** The PostgreSQL server (its backends are its children) and the Temporal dev server, for their CPU (cpu.ts). */
  postgresPid: number;
  temporalPid: number;
  /** The environment the apps run with (the bench reads the same config). */
  appEnv: NodeJS.ProcessEnv;
  /** Throws when an app process has died. */
  assertAlive(): void;
  stop(): Promise<void>;
}

export type Say = (msg: string) => void;

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Spawns a built app with its output in a log file, and waits for its ready log line. */
async function startApp(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  readyText: string,
  timeoutMs = 120_000,
): Promise<AppProcess> {
  const fd = openSync(logFile, 'a');
  const proc = spawnManaged(process.execPath, args, { name, env, cwd: REPO_ROOT, stdio: ['ignore', fd, fd], stopSignal: 'SIGTERM' });
  closeSync(fd);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.hasExited()) throw new Error(`${name} ${describeExit(await proc.exited)} before it was ready:\n${tail(logFile)}`);
    if (existsSync(logFile) && readFileSync(logFile, 'utf8').includes(readyText)) break;
    if (Date.now() > deadline) {
      await proc.stop(5_000);
      throw new Error(`${name} did not log "${readyText}" within ${timeoutMs / 1000}s:\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, pid: proc.pid, logFile, proc };
}

export interface BenchStackOptions {
  /** Keep the temp dir (logs, databases) after stopping. */
  keepData?: boolean;
  /**
   * The Temporal dev server's store: `memory` (default; as the integration tests run it) or
   * `file` (a SQLite file, as `npm start` runs it). The file store pays a synchronous SQLite
   * write per history update (~30 ms per workflow start measured on the 2-core VM, against
   * ~4 ms in memory), which then dominates every figure; no production cluster works that way.
   */
  temporalStore?: 'memory' | 'file';
  /** Write V8 CPU profiles of the worker and the gateway into this directory (`--cpu-prof DIR`). */
  cpuProfileDir?: string;
}

export async function startBenchStack(say: Say, opts: BenchStackOptions = {}): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  chmodSync(dataDir, 0o711); // traversable for the `postgres` user PostgreSQL runs as under root
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    while (stops.length) {
      try {
        await stops.pop()!();
      } catch (err) {
        say(`stop failed: ${(err as Error).message}`);
      }
    }
    if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    for (const f of [GATEWAY_MAIN, WORKER_MAIN, BARE_ROUTE, FLOOR_WORKER, DURABLE_FLOOR_API]) {
      if (!existsSync(f)) throw new Error(`${path.relative(REPO_ROOT, f)} is missing: run \`npm run build\` first.`);
    }
    const cliPath = await ensureTemporalCli(say);
    const taken = new Set<number>();
    const port = async () => {
      const p = await findFreePort(undefined, { avoid: taken });
      taken.add(p);
      return p;
    };
    const [pgPort, temporalPort, apiPort, barePort, durablePort] = [await port(), await port(), await port(), await port(), await port()];
    const namespace = 'default';
    say(`starting PostgreSQL (127.0.0.1:${pgPort}) and the Temporal dev server (127.0.0.1:${temporalPort}) in ${dataDir}`);
    const [pg, temporal] = await Promise.allSettled([
      startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: pgPort, log: say }),
      startTemporalDevServer({
        cliPath,
        port: temporalPort,
        headless: true,
        dbFile: opts.temporalStore === 'file' ? path.join(dataDir, 'temporal.db') : undefined,
        namespace,
        searchAttributes: SEARCH_ATTRIBUTES,
        log: say,
        // The server's own log goes to a file: its warnings (e.g. tasks cut short when the
        // worker stops) are not the bench's output.
        onServerLog: (line) => appendFileSync(path.join(dataDir, 'temporal.log'), `${line}\n`),
      }),
    ]);
    if (pg.status === 'fulfilled') stops.push(() => (pg.value as EmbeddedPostgres).stop());
    if (temporal.status === 'fulfilled') stops.push(() => (temporal.value as TemporalDevServer).stop());
    if (pg.status === 'rejected') throw pg.reason;
    if (temporal.status === 'rejected') throw temporal.reason;
    const databaseUrl = pg.value.databaseUrl;
    await migrate(databaseUrl);

    const encryptionKey = randomBytes(32).toString('hex');
    const taskQueue = `svc-bench-${randomBytes(4).toString('hex')}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const appEnv: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.value.address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SVC_ENCRYPTION_KEY: encryptionKey,
      HOST: '127.0.0.1',
      BASE_URL: apiUrl,
      DATA_DIR: dataDir,
      // Operator settings for the local webhook receiver (API.md §7: operators may allow CIDRs
      // and plain http by configuration): loopback only.
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      OUTBOUND_ALLOW_HTTP: 'true',
      // Its worker's metrics on any free port, so a bench runs beside `npm start`.
      WORKER_METRICS_ADDRESS: process.env.WORKER_METRICS_ADDRESS ?? '127.0.0.1:0',
    };
    delete appEnv.PORT;

    say('starting the worker, the floor worker and the gateway (separate processes)');
    const floorTaskQueue = `${taskQueue}-floor`;
    const floorDeliveryTaskQueue = `${floorTaskQueue}-deliveries`;
    const floorWebhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
    const floorArgs = [
      FLOOR_WORKER,
      ...['--address', temporal.value.address, '--namespace', namespace],
      ...['--task-queue', floorTaskQueue, '--delivery-task-queue', floorDeliveryTaskQueue],
    ];
    const profile = opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfileDir)}`] : [];
    // Started as `npm start` starts them: with their configured node flags.
    const { WORKER_NODE_FLAGS, GATEWAY_NODE_FLAGS } = loadConfig(appEnv);
    const [workerStart, floorStart] = await Promise.allSettled([
      startApp(
        'worker',
        [...profile, ...WORKER_NODE_FLAGS, WORKER_MAIN],
        { ...APP_PROCESSES.worker.env, ...appEnv },
        path.join(dataDir, 'worker.log'),
        'worker running',
      ),
      startApp(
        'floor',
        floorArgs,
        { ...process.env, FLOOR_WEBHOOK_SECRET: floorWebhookSecret, DATABASE_URL: databaseUrl },
        path.join(dataDir, 'floor.log'),
        'floor worker running',
      ),
    ]);
    for (const s of [workerStart, floorStart]) if (s.status === 'fulfilled') stops.push(() => s.value.proc.stop(30_000));
    if (workerStart.status === 'rejected') throw workerStart.reason;
    if (floorStart.status === 'rejected') throw floorStart.reason;
    const [worker, floor] = [workerStart.value, floorStart.value];
    const gateway = await startApp(
      'gateway',
      [...profile, ...GATEWAY_NODE_FLAGS, GATEWAY_MAIN],
      { ...APP_PROCESSES.gateway.env, ...appEnv, PORT: String(apiPort) },
      path.join(dataDir, 'gateway.log'),
      'gateway listening',
    );
    stops.push(() => gateway.proc.stop(15_000));
    const bare = await startApp(
      'bare',
      [...GATEWAY_NODE_FLAGS, BARE_ROUTE],
      { ...process.env, BENCH_BARE_PORT: String(barePort) },
      path.join(dataDir, 'bare.log'),
      'bare route listening',
    );
    stops.push(() => bare.proc.stop(5_000));
    const durableFloor = await startApp(
      'durable-floor',
      [...GATEWAY_NODE_FLAGS, DURABLE_FLOOR_API],
      {
        ...process.env,
        DURABLE_FLOOR_PORT: String(durablePort),
        DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: temporal.value.address,
        TEMPORAL_NAMESPACE: namespace,
        FLOOR_TASK_QUEUE: floorTaskQueue,
        SVC_TASK_QUEUE: taskQueue,
      },
      path.join(dataDir, 'durable-floor.log'),
      'durable floor listening',
    );
    stops.push(() => durableFloor.proc.stop(5_000));

    return {
      dataDir,
      databaseUrl,
      temporalAddress: temporal.value.address,
      namespace,
      taskQueue,
      floorTaskQueue,
      floorDeliveryTaskQueue,
      floorWebhookSecret,
      encryptionKey,
      apiUrl,
      bareUrl: `http://127.0.0.1:${barePort}`,
      durableFloorUrl: `http://127.0.0.1:${durablePort}`,
      gateway,
      worker,
      bare,
      floor,
      durableFloor,
      postgresPid: pg.value.pid,
      temporalPid: temporal.value.pid,
      appEnv,
      assertAlive() {
        for (const app of [gateway, worker, floor, bare, durableFloor]) {
          if (app.proc.hasExited()) throw new Error(`the ${app.name} died during the bench:\n${tail(app.logFile)}`);
        }
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
