import { chmodSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { forEachLine, LineTail, silentLog, sleep, type Log } from './log';
import { describeExit, processArgv, spawnManaged, terminatePid, type ExitInfo } from './processes';

export type SearchAttributeType = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/**
 * The custom search attributes the run workflow sets. Registered on the dev server at start;
 * on a real cluster an operator registers them once, e.g.
 * `temporal operator search-attribute create --name SvcWorkspaceId --type Keyword`.
 */
export const SEARCH_ATTRIBUTES = {
  SvcRunId: 'Keyword',
  SvcWorkspaceId: 'Keyword',
  SvcWorkflowId: 'Keyword',
  SvcRunStatus: 'Keyword',
} as const satisfies Record<string, SearchAttributeType>;

export interface TemporalDevServerOptions {
  /** Path of the `temporal` CLI binary (see ensureTemporalCli). */
  cliPath: string;
  /** SQLite file for persistence; omitted = in memory (lost when the server stops). */
  dbFile?: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port; ignored with `headless`. Default: port + 1000. */
  uiPort?: number;
  /** No Web UI (tests). */
  headless?: boolean;
  /** Created at start when not `default` (which always exists). Default `default`. */
  namespace?: string;
  searchAttributes?: Readonly<Record<string, SearchAttributeType>>;
  /** Server dynamic config values (`--dynamic-config-value KEY=VALUE`), e.g. `{ 'history.maxInFlightUpdates': 2 }`. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** Interface to bind (default 127.0.0.1). */
  ip?: string;
  log?: Log;
  /** Every line the server writes (default: they go to `log`, prefixed; the server logs at warn level). */
  onServerLog?: (line: string) => void;
  /** Server log level (default warn). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'never';
  /** Default 120 s. */
  startTimeoutMs?: number;
}

export interface TemporalDevServer {
  /** host:port of the frontend, for TEMPORAL_ADDRESS. */
  address: string;
  namespace: string;
  /** Web UI, or null when headless. */
  uiUrl: string | null;
  pid: number;
  /** Resolves when the server exits (for whatever reason). */
  exited: Promise<ExitInfo>;
  /** SIGTERM, then SIGKILL after 15 s. Idempotent. */
  stop(): Promise<void>;
}

/** `temporal server start-dev` still running on this SQLite file from an earlier process that died. */
async function stopStaleServer(dbFile: string, log: Log): Promise<void> {
  if (process.platform !== 'linux') return;
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return;
  }
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const argv = processArgv(pid);
    if (!argv || !argv.includes('start-dev')) continue;
    const i = argv.findIndex((a) => a === '--db-filename' || a === '-f');
    if (i < 0 || !argv[i + 1] || path.resolve(argv[i + 1]) !== dbFile) continue;
    log(`Stopping a Temporal dev server left running on ${dbFile} by an earlier run (pid ${pid}) ...`);
    await terminatePid(pid, 'SIGTERM', 15_000);
  }
}

type Probe = { ok: true } | { ok: false; reason: string };

async function probe(address: string, namespace: string, attributes: string[]): Promise<Probe> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    await connection.workflowService.describeNamespace({ namespace });
    const { keys } = await connection.operatorService.listSearchAttributes({ namespace }).then((r) => ({
      keys: Object.keys(r.customAttributes ?? {}),
    }));
    const missing = attributes.filter((a) => !keys.includes(a));
    if (missing.length) return { ok: false, reason: `search attributes not registered yet: ${missing.join(', ')}` };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * Dynamic config for a one-node dev server. One partition per task queue: with the default
 * four, a poll and the task it waits for can sit on different partitions and meet only after
 * forwarding, which adds latency to every workflow task of a small deployment. Eager activity
 * execution: an activity scheduled by a workflow task goes straight back to the worker that
 * completed it (when it has a free slot), without a round through matching. Eager workflow
 * start (on by default in the server 1.29 this CLI carries, off in older ones; set so it is
 * stated): a workflow started by a process whose Worker serves its task queue, as the worker
 * starts webhook deliveries, gets its first task in the start's answer, with no transfer-queue
 * read, matching or poll between.
 *
 * The transfer queue's reader (which hands every new workflow task to matching) may read at
 * most 20 times a second per history shard by default, and the dev server has one shard: a
 * task written within 50 ms of the last read waited for the next one, which dominated a one-step
 * run's latency. 100 reads/s bounds that wait to 10 ms; under load the reader still batches.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableActivityEagerExecution': true,
  'system.enableEagerWorkflowStart': true,
  'history.transferProcessorMaxPollRPS': 100,
};

/**
 * SQLite settings for a file-backed dev server (`--sqlite-pragma`). Write-ahead logging: a commit
 * appends to the log and syncs it once, where the default rollback journal writes and syncs the
 * journal and then the database file on every commit. `synchronous` stays at its default (FULL),
 * so a committed write survives a power loss as before.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: Record<string, string> = {
  journal_mode: 'wal',
};

/**
 * Starts `temporal server start-dev` (the real Temporal server with SQLite and the Web UI) on
 * `ip`:`port`, with the given namespace and search attributes, and resolves once the frontend
 * answers for that namespace and the search attributes are registered.
 */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const log = options.log ?? silentLog;
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const uiPort = options.uiPort ?? options.port + 1000;
  const attributes = options.searchAttributes ?? {};
  const dbFile = options.dbFile ? path.resolve(options.dbFile) : undefined;

  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port)];
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (dbFile) {
    args.push('--db-filename', dbFile);
    for (const [pragma, value] of Object.entries(DEV_SERVER_SQLITE_PRAGMAS)) args.push('--sqlite-pragma', `${pragma}=${value}`);
  }
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(attributes)) args.push('--search-attribute', `${name}=${type}`);
  const dynamicConfig = { ...DEV_SERVER_DYNAMIC_CONFIG, ...options.dynamicConfig };
  for (const [key, value] of Object.entries(dynamicConfig)) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  args.push('--log-level', options.logLevel ?? 'warn', '--log-format', 'text', '--color', 'never');

  const host = ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const address = `${hostInUrl}:${options.port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  const launch = { options, args, address, namespace, attributes: Object.keys(attributes), dbFile, deadline, log };
  for (let attempt = 1; ; attempt++) {
    try {
      const started = await startOnce(launch);
      const uiUrl = options.headless ? null : `http://${hostInUrl}:${uiPort}`;
      return { address, namespace, uiUrl, ...started };
    } catch (err) {
      if (!(err instanceof DevServerPanic) || attempt >= STARTS_AFTER_A_PANIC) throw err;
      log(`The Temporal dev server panicked while starting (${err.panic}); starting it again`);
    }
  }
}

/**
 * How often a start is tried when the server panics while starting (a Go panic, exit code 2).
 * One start in CI died so, its message pushed out of the log's tail by the goroutine dump. The
 * CLI picks its internal ports (HTTP, metrics, the services' gRPC ports) by probing for free ones
 * and binds them later, which another process on the machine can win in between; a new start
 * picks new ones. Any other failure (the frontend port taken, a bad flag: an error message and
 * exit code 1) is reported at once.
 */
const STARTS_AFTER_A_PANIC = 3;

/** A start that ended in a Go panic: `panic` is the panic's first line. */
class DevServerPanic extends Error {
  constructor(
    message: string,
    readonly panic: string,
  ) {
    super(message);
  }
}

/** One start of the server, resolved once it answers; it throws DevServerPanic after a panic. */
async function startOnce(l: {
  options: TemporalDevServerOptions;
  args: string[];
  address: string;
  namespace: string;
  attributes: string[];
  dbFile: string | undefined;
  deadline: number;
  log: Log;
}): Promise<Pick<TemporalDevServer, 'pid' | 'exited' | 'stop'>> {
  const { options, args, address, log, dbFile } = l;
  if (dbFile) await stopStaleServer(dbFile, log);

  const tail = new LineTail(60);
  // A Go panic's first line, which a long goroutine dump pushes out of the tail.
  let panic: string | undefined;
  const proc = spawnManaged(options.cliPath, args, { name: 'temporal', stopSignal: 'SIGTERM' });
  // stdout only carries the start banner (with "localhost" addresses we print better ourselves);
  // stderr carries the server log. Warnings while shutting down are expected noise.
  const onLine = (line: string, fromStderr: boolean): void => {
    tail.push(line);
    if (panic === undefined && line.startsWith('panic: ')) panic = line;
    if (options.onServerLog) options.onServerLog(line);
    else if (fromStderr && line.trim() && !proc.isStopping()) log(`[temporal] ${line}`);
  };
  forEachLine(proc.child.stdout, (l) => onLine(l, false));
  forEachLine(proc.child.stderr, (l) => onLine(l, true));

  const stop = async (): Promise<void> => {
    await proc.stop(15_000);
  };

  let last = 'not started';
  for (;;) {
    if (proc.hasExited()) {
      const e = await proc.exited;
      const message = `The Temporal dev server ${describeExit(e)} during startup (${options.cliPath} ${args.join(' ')}):\n${panic ? `${panic}\n…\n` : ''}${tail.toString()}`;
      throw panic ? new DevServerPanic(message, panic) : new Error(message);
    }
    const r = await probe(address, l.namespace, l.attributes);
    if (r.ok) break;
    last = r.reason;
    if (Date.now() > l.deadline) {
      await stop();
      throw new Error(`The Temporal dev server did not become ready on ${address} in time (${last}):\n${tail.toString()}`);
    }
    await sleep(250);
  }

  if (dbFile) {
    // Workflow histories hold run inputs and outputs: keep the store private.
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) {
      try {
        chmodSync(f, 0o600);
      } catch {
        /* absent */
      }
    }
  }
  return { pid: proc.pid, exited: proc.exited, stop };
}
