import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { APP_PROCESSES, appLaunch, loadConfig } from '@svc/config';
import type { AppName } from '@svc/config';
import { migrate } from '@svc/db';
import {
  DEFAULT_PORTS,
  SEARCH_ATTRIBUTES,
  describeExit,
  ensureTemporalCli,
  findFreePort,
  isPortFree,
  isProcessAlive,
  loadOrCreateDevEncryptionKey,
  readStackFile,
  removeStackFile,
  startAppProcess,
  startEmbeddedPostgres,
  startTemporalDevServer,
  writeStackFile,
  type ExitInfo,
  type StackInfo,
} from '@svc/devstack';
import { formatBanner } from './banner';
import { createDemo, demoAdminSignInLink, readDemoFile, svcCliRunner, writeDemoFile, type DemoInfo } from './demo';

/**
 * `npm start`. With no configuration: embedded PostgreSQL (DATA_DIR/postgres) and a Temporal
 * dev server (DATA_DIR/temporal.db), migrations, then the worker and the gateway as child
 * processes, demo data on first start, and the URLs printed. DATABASE_URL / TEMPORAL_ADDRESS,
 * when set, replace the corresponding embedded service. Ctrl-C stops gateway, worker, Temporal
 * and PostgreSQL in that order; if any of them dies, everything is stopped and we exit 1.
 */

const say = (msg: string): void => {
  process.stdout.write(`[stack] ${msg}\n`);
};
const warn = (msg: string): void => {
  process.stderr.write(`[stack] ${msg}\n`);
};

interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

export interface StackPaths {
  repoRoot: string;
  gateway: string;
  worker: string;
  cli: string;
  demoDefinition: string;
}

export function stackPaths(repoRoot = path.resolve(__dirname, '..', '..', '..')): StackPaths {
  return {
    repoRoot,
    gateway: path.join(repoRoot, APP_PROCESSES.gateway.entry),
    worker: path.join(repoRoot, APP_PROCESSES.worker.entry),
    cli: path.join(repoRoot, 'apps', 'cli', 'bin', 'svc.js'),
    demoDefinition: path.join(repoRoot, 'apps', 'stack', 'demo', 'greet.yaml'),
  };
}

class Supervisor {
  private readonly running: Stoppable[] = [];
  private shuttingDown: Promise<void> | null = null;
  private firstSignalAt = 0;
  private cleanups: Array<() => void> = [];

  constructor() {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => this.onSignal(sig));
  }

  get stopping(): boolean {
    return this.shuttingDown !== null;
  }

  add(item: Stoppable): void {
    this.running.push(item);
  }

  onCleanup(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /** Stops a service that died by itself, and everything else; exits 1. */
  watch(name: string, exited: Promise<ExitInfo>, isStopping: () => boolean = () => false): void {
    void exited.then((e) => {
      if (this.stopping || isStopping()) return;
      void this.shutdown(1, `${name} ${describeExit(e)} unexpectedly; stopping the stack.`);
    });
  }

  private onSignal(sig: NodeJS.Signals): void {
    if (!this.stopping) {
      this.firstSignalAt = Date.now();
      void this.shutdown(0, `Received ${sig}; stopping ...`);
      return;
    }
    // The same Ctrl-C can arrive twice (terminal + npm forwarding it): only a later one forces.
    if (Date.now() - this.firstSignalAt < 1_000) return;
    warn('Forced stop.');
    process.exit(130); // children get their stop signal from the exit hook (and the kernel)
  }

  shutdown(code: number, reason?: string): Promise<void> {
    if (this.shuttingDown) return this.shuttingDown;
    this.shuttingDown = (async () => {
      if (reason) (code ? warn : say)(reason);
      let exitCode = code;
      while (this.running.length) {
        const item = this.running.pop()!;
        say(`Stopping ${item.name} ...`);
        try {
          await item.stop();
        } catch (err) {
          warn(`Stopping ${item.name} failed: ${(err as Error).message}`);
          exitCode = exitCode || 1;
        }
      }
      for (const fn of this.cleanups) {
        try {
          fn();
        } catch {
          /* best effort */
        }
      }
      say('Stopped.');
      process.exit(exitCode);
    })();
    return this.shuttingDown;
  }
}

/**
 * Starts the gateway or the worker as `appLaunch` says, its output passed through; resolves once
 * it is ready (startAppProcess), and from then on a death stops the stack.
 */
async function startApp(sup: Supervisor, name: AppName, env: NodeJS.ProcessEnv, paths: StackPaths, stopTimeoutMs: number): Promise<void> {
  const launch = appLaunch(name, env);
  const app = await startAppProcess({
    name,
    entry: paths[name],
    nodeFlags: launch.nodeFlags,
    env: launch.env,
    cwd: paths.repoRoot,
    onLine: (line, stream) => (stream === 'stdout' ? process.stdout : process.stderr).write(`${line}\n`),
  });
  sup.add({
    name,
    stop: async () => {
      await app.stop(stopTimeoutMs);
    },
  });
  sup.watch(name, app.exited, () => app.process.isStopping());
}

function checkNoOtherStack(dataDir: string): void {
  let existing: StackInfo | null = null;
  try {
    existing = readStackFile(dataDir);
  } catch (err) {
    warn(`Ignoring ${(err as Error).message}`);
  }
  if (existing && existing.pid !== process.pid && isProcessAlive(existing.pid)) {
    throw new Error(
      `Another stack is already running from ${dataDir} (pid ${existing.pid}, API at ${existing.apiUrl}). ` +
        `Stop it first (Ctrl-C in its terminal, or kill ${existing.pid}); if pid ${existing.pid} is not an svc stack, ` +
        `delete ${path.join(dataDir, 'stack.json')}.`,
    );
  }
}

export async function runStack(env: NodeJS.ProcessEnv = process.env, paths: StackPaths = stackPaths()): Promise<void> {
  const sup = new Supervisor();
  try {
    await start(sup, env, paths);
  } catch (err) {
    await sup.shutdown(1, `Start failed: ${(err as Error).message}`);
  }
}

async function start(sup: Supervisor, env: NodeJS.ProcessEnv, paths: StackPaths): Promise<void> {
  const cfg = loadConfig(env); // fails fast, naming every bad variable
  const dataDir = path.resolve(cfg.DATA_DIR);
  const embeddedDb = !env.DATABASE_URL;
  const embeddedTemporal = !env.TEMPORAL_ADDRESS;

  for (const [what, file] of [
    ['gateway', paths.gateway],
    ['worker', paths.worker],
  ] as const) {
    if (!existsSync(file)) throw new Error(`The ${what} is not built (${file} is missing): run \`npm run build\` first.`);
  }

  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // private when we create it
  checkNoOtherStack(dataDir);

  // The encryption key: given, or (embedded database only) the generated dev key.
  let encryptionKey = env.SVC_ENCRYPTION_KEY;
  if (!encryptionKey) {
    if (!embeddedDb) {
      throw new Error(
        'SVC_ENCRYPTION_KEY is required when DATABASE_URL is set (64 hex characters or base64 of 32 bytes, ' +
          'e.g. `openssl rand -hex 32`); the generated development key is only used with the embedded database.',
      );
    }
    encryptionKey = loadOrCreateDevEncryptionKey(dataDir);
  }

  // The API port: PORT when given (must be free), else 8080 or any free port.
  const taken = new Set<number>();
  let apiPort: number;
  if (env.PORT) {
    apiPort = cfg.PORT;
    if (!(await isPortFree(apiPort, cfg.HOST))) throw new Error(`PORT ${apiPort} is already in use on ${cfg.HOST}.`);
  } else {
    apiPort = await findFreePort(DEFAULT_PORTS.api, { host: cfg.HOST });
    if (apiPort !== DEFAULT_PORTS.api) say(`Port ${DEFAULT_PORTS.api} is in use; the API listens on ${apiPort} instead.`);
  }
  taken.add(apiPort);
  const baseUrl = (env.BASE_URL ?? `http://localhost:${apiPort}`).replace(/\/$/, '');

  const namespace = cfg.TEMPORAL_NAMESPACE;
  let databaseUrl = env.DATABASE_URL!;
  let temporalAddress = env.TEMPORAL_ADDRESS!;
  let temporalUiUrl: string | null = null;
  let freshDatabase = false;

  // PostgreSQL and Temporal start side by side (the first time, the Temporal CLI may be built).
  const startPostgres = async () => {
    if (!embeddedDb) return null;
    const port = await findFreePort(DEFAULT_PORTS.postgres, { avoid: taken });
    taken.add(port);
    say(`Starting PostgreSQL on 127.0.0.1:${port} (data in ${path.join(dataDir, 'postgres')}) ...`);
    return startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port, log: say });
  };
  const startTemporal = async () => {
    if (!embeddedTemporal) return null;
    const cliPath = await ensureTemporalCli(say);
    const port = await findFreePort(DEFAULT_PORTS.temporal, { avoid: taken });
    taken.add(port);
    const uiPort = await findFreePort(port === DEFAULT_PORTS.temporal ? DEFAULT_PORTS.temporalUi : port + 1000, { avoid: taken });
    taken.add(uiPort);
    say(`Starting the Temporal dev server on 127.0.0.1:${port} (data in ${path.join(dataDir, 'temporal.db')}) ...`);
    return startTemporalDevServer({
      cliPath,
      dbFile: path.join(dataDir, 'temporal.db'),
      port,
      uiPort,
      namespace,
      searchAttributes: SEARCH_ATTRIBUTES,
      log: say,
    });
  };
  const [pgResult, temporalResult] = await Promise.allSettled([startPostgres(), startTemporal()]);
  // Registered in start order; the supervisor stops in reverse (… Temporal, then PostgreSQL).
  if (pgResult.status === 'fulfilled' && pgResult.value) {
    const pg = pgResult.value;
    sup.add({ name: 'PostgreSQL', stop: pg.stop });
    sup.watch('PostgreSQL', pg.exited);
    databaseUrl = pg.databaseUrl;
    freshDatabase = pg.created;
  }
  if (temporalResult.status === 'fulfilled' && temporalResult.value) {
    const t = temporalResult.value;
    sup.add({ name: 'Temporal', stop: t.stop });
    sup.watch('Temporal', t.exited);
    temporalAddress = t.address;
    temporalUiUrl = t.uiUrl;
  }
  if (pgResult.status === 'rejected') throw pgResult.reason;
  if (temporalResult.status === 'rejected') throw temporalResult.reason;
  if (sup.stopping) return;

  const { applied } = await migrate(databaseUrl);
  say(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'Database schema is up to date.');

  writeStackFile(dataDir, {
    databaseUrl,
    temporalAddress,
    temporalNamespace: namespace,
    temporalUiUrl,
    apiUrl: baseUrl,
    encryptionKey,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  });
  sup.onCleanup(() => {
    const current = readStackFile(dataDir);
    if (current?.pid === process.pid) removeStackFile(dataDir);
  });

  const appEnv: NodeJS.ProcessEnv = {
    ...env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: namespace,
    SVC_ENCRYPTION_KEY: encryptionKey,
    HOST: cfg.HOST,
    BASE_URL: baseUrl,
    DATA_DIR: dataDir,
  };
  // The worker's metrics: WORKER_METRICS_ADDRESS when given, else its default port or the next free one.
  const workerMetrics = env.WORKER_METRICS_ADDRESS
    ? cfg.WORKER_METRICS_ADDRESS
    : `127.0.0.1:${await findFreePort(Number(cfg.WORKER_METRICS_ADDRESS.split(':').pop()), { avoid: taken })}`;
  const workerEnv: NodeJS.ProcessEnv = { ...appEnv, WORKER_METRICS_ADDRESS: workerMetrics };
  delete workerEnv.PORT; // the API port is the gateway's
  const started = await Promise.allSettled([
    startApp(sup, 'worker', workerEnv, paths, 30_000),
    startApp(sup, 'gateway', { ...appEnv, PORT: String(apiPort) }, paths, 10_000),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  if (sup.stopping) return;

  let demo: DemoInfo | null = null;
  let demoNote: string | undefined;
  if (embeddedDb) {
    demo = freshDatabase ? null : readDemoFile(dataDir);
    if (!demo) {
      say('Creating the demo workspace, API key and workflow ...');
      try {
        const run = svcCliRunner(paths.cli, { ...appEnv, LOG_LEVEL: 'warn' }, paths.repoRoot);
        demo = await createDemo(run, paths.demoDefinition);
        writeDemoFile(dataDir, demo);
      } catch (err) {
        warn(`Could not create the demo data: ${(err as Error).message}`);
        demoNote = 'No demo data (see the error above); create a workspace and key with `npm run svc -- --help`.';
      }
    }
  } else {
    demoNote = 'No demo data with an external database; create a workspace and key with `npm run svc -- --help`.';
  }
  let consoleLink: string | undefined;
  if (demo) {
    try {
      consoleLink = await demoAdminSignInLink(svcCliRunner(paths.cli, { ...appEnv, LOG_LEVEL: 'warn' }, paths.repoRoot), demo.workspaceId);
    } catch (err) {
      warn(`Could not make a console sign-in link: ${(err as Error).message}`);
    }
  }
  if (sup.stopping) return;

  process.stdout.write(
    formatBanner({
      baseUrl,
      temporalUiUrl,
      temporal: { address: temporalAddress, namespace },
      workerMetricsUrl: `http://${workerMetrics}/metrics`,
      dataDir,
      demo,
      demoNote,
      consoleLink,
      embedded: { postgres: embeddedDb, temporal: embeddedTemporal },
    }),
  );
}
