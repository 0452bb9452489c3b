import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { TLSConfig } from '@temporalio/client';
import Long from 'long';
import YAML from 'yaml';
import { ensureGoTool, goModuleDir } from './goTool';
import type { GoTool } from './goTool';
import { forEachLine, LineTail, silentLog, sleep, type Log } from './log';
import { isPortFree } from './ports';
import { describeExit, spawnManaged, type ExitInfo } from './processes';
import { runCommand } from './runCommand';
import type { SearchAttributeType } from './temporalServer';

/**
 * The Temporal server as operators run it (all four services in one process) on PostgreSQL with
 * SQL visibility, built from the Go module proxy. v1.32.1 is the newest release whose go.mod
 * this machine's Go accepts (later patches ask for a newer Go than Debian's toolchain here).
 */
export const TEMPORAL_SERVER_VERSION = 'v1.32.1';
const SERVER_MODULE = 'go.temporal.io/server';

const TEMPORAL_SERVER_TOOL: GoTool = {
  label: 'the Temporal server and its SQL tool',
  name: 'temporal-server',
  version: TEMPORAL_SERVER_VERSION,
  packages: [`${SERVER_MODULE}/cmd/server`, `${SERVER_MODULE}/cmd/tools/sql`],
  binaries: ['server', 'sql'],
  buildMinutes: 8,
};

/**
 * Dynamic config svc needs from the Temporal server, stated though this version's defaults agree:
 * updates (`wait`, review decisions, cancel), eager workflow start (webhook deliveries), and ids
 * as long as a run's workflow id (`ws_…/wf_…/` and an idempotency key of up to 255 characters).
 * Update-with-start needs no switch here (servers before 1.30: frontend.enableExecuteMultiOperation).
 */
export const SVC_TEMPORAL_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'system.enableEagerWorkflowStart': true,
  'limit.maxIDLength': 1000,
};

/** `{ key: value }` as the server's dynamic config file writes it (`key: [{ value }]`). */
export function dynamicConfigYaml(values: Readonly<Record<string, unknown>>): string {
  return YAML.stringify(Object.fromEntries(Object.entries(values).map(([k, value]) => [k, [{ value }]])));
}

export interface TemporalServerBuild {
  /** The `temporal-server` binary. */
  server: string;
  /** The `temporal-sql-tool` binary. */
  sqlTool: string;
  /** `schema/postgresql/v12` of the server's module: `temporal/versioned` and `visibility/versioned`. */
  schemaDir: string;
  /** The module's `config/development-postgres12.yaml`, which the server's config is derived from. */
  baseConfig: string;
}

/** Builds (once per machine, into ~/.cache/svc/temporal-server/<version>) or finds the server and its SQL tool. */
export async function ensureTemporalServer(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<TemporalServerBuild> {
  const dir = await ensureGoTool(TEMPORAL_SERVER_TOOL, log, env);
  const moduleDir = await goModuleDir(SERVER_MODULE, TEMPORAL_SERVER_VERSION, env);
  return {
    server: path.join(dir, 'server'),
    sqlTool: path.join(dir, 'sql'),
    schemaDir: path.join(moduleDir, 'schema', 'postgresql', 'v12'),
    baseConfig: path.join(moduleDir, 'config', 'development-postgres12.yaml'),
  };
}

export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The endpoint of a `postgresql://user:password@host:port/…` URL. */
export function postgresEndpoint(databaseUrl: string): PostgresEndpoint {
  const u = new URL(databaseUrl);
  return { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

/** SQL_* settings of `temporal-sql-tool` for an endpoint (the tool reads these variables). */
export function sqlToolEnv(pg: PostgresEndpoint): Record<string, string> {
  return { SQL_PLUGIN: 'postgres12', SQL_HOST: pg.host, SQL_PORT: String(pg.port), SQL_USER: pg.user, SQL_PASSWORD: pg.password };
}

/** Creates both databases when absent and brings their schemas to the module's latest version. */
export async function setupTemporalSchemas(
  build: TemporalServerBuild,
  pg: PostgresEndpoint,
  databases: { main: string; visibility: string },
): Promise<void> {
  const env = { ...process.env, ...sqlToolEnv(pg) };
  for (const [db, schema] of [
    [databases.main, 'temporal'],
    [databases.visibility, 'visibility'],
  ] as const) {
    await runCommand(build.sqlTool, ['--db', db, 'create-database'], env).catch((err: Error) => {
      if (!/already exists/.test(err.message)) throw err;
    });
    await runCommand(build.sqlTool, ['--db', db, 'setup-schema', '-v', '0.0'], env);
    await runCommand(build.sqlTool, ['--db', db, 'update-schema', '-d', path.join(build.schemaDir, schema, 'versioned')], env);
  }
}

/** Files of the server's frontend TLS: its certificate, and the CA its clients' certificates must chain to. */
export interface TemporalServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** A client certificate (signed by caFile) the server's own system worker presents. */
  clientCertFile: string;
  clientKeyFile: string;
  /** The name in certFile that clients check. */
  serverName: string;
}

export interface TemporalClusterOptions {
  build: TemporalServerBuild;
  /** Where its config file is written. */
  dataDir: string;
  postgres: PostgresEndpoint;
  databases: { main: string; visibility: string };
  /** Frontend gRPC port (the other services take free ports). */
  port: number;
  /** The dynamic config file's content (default: SVC_TEMPORAL_DYNAMIC_CONFIG). */
  dynamicConfig?: string;
  /** Mutual TLS on the frontend. */
  tls?: TemporalServerTls;
  log?: Log;
  onServerLog?: (line: string) => void;
  startTimeoutMs?: number;
}

export interface TemporalCluster {
  address: string;
  pid: number;
  exited: Promise<ExitInfo>;
  stop(): Promise<void>;
}

/** The server's config: the module's development-postgres12 config, pointed at `o`'s database, ports and files. */
export async function temporalServerConfig(o: TemporalClusterOptions, dynamicConfigFile: string): Promise<unknown> {
  const config = YAML.parse(readFileSync(o.build.baseConfig, 'utf8')) as Record<string, any>;
  const stores = config.persistence.datastores as Record<string, { sql: Record<string, unknown> }>;
  const names = [o.databases.main, o.databases.visibility];
  Object.values(stores).forEach(({ sql }, i) => {
    Object.assign(sql, {
      databaseName: names[i],
      connectAddr: `${o.postgres.host}:${o.postgres.port}`,
      user: o.postgres.user,
      password: o.postgres.password,
    });
  });
  const used = [o.port];
  // Below 32768: the membership table stores ports as smallint.
  const free = async () => {
    for (;;) {
      const p = 10_000 + randomInt(22_000);
      if (used.includes(p) || !(await isPortFree(p))) continue;
      used.push(p);
      return p;
    }
  };
  for (const [name, service] of Object.entries(config.services as Record<string, { rpc: Record<string, unknown> }>)) {
    service.rpc.grpcPort = name === 'frontend' ? o.port : await free();
    service.rpc.membershipPort = await free();
    if ('httpPort' in service.rpc) service.rpc.httpPort = await free();
  }
  config.clusterMetadata.clusterInformation.active.rpcAddress = `127.0.0.1:${o.port}`;
  // No profiler, no metrics listener and no archival: ports and files a test has no use for.
  delete config.global.pprof;
  delete config.global.metrics;
  delete config.archival;
  delete config.namespaceDefaults;
  config.log = { stdout: true, level: 'warn' };
  config.dynamicConfigClient = { filepath: dynamicConfigFile, pollInterval: '10s' };
  if (o.tls) {
    const clientOfFrontend = { serverName: o.tls.serverName, rootCaFiles: [o.tls.caFile] };
    config.global.tls = {
      frontend: {
        server: { certFile: o.tls.certFile, keyFile: o.tls.keyFile, requireClientAuth: true, clientCaFiles: [o.tls.caFile] },
        client: clientOfFrontend,
      },
      systemWorker: { certFile: o.tls.clientCertFile, keyFile: o.tls.clientKeyFile, client: clientOfFrontend },
    };
  }
  return config;
}

/** Starts the server and resolves once its frontend answers. */
export async function startTemporalCluster(o: TemporalClusterOptions): Promise<TemporalCluster> {
  const log = o.log ?? silentLog;
  const configDir = path.join(o.dataDir, 'config');
  mkdirSync(configDir, { recursive: true });
  const dynamicConfigFile = path.join(configDir, 'dynamic.yaml');
  writeFileSync(dynamicConfigFile, o.dynamicConfig ?? dynamicConfigYaml(SVC_TEMPORAL_DYNAMIC_CONFIG));
  writeFileSync(path.join(configDir, 'svc.yaml'), YAML.stringify(await temporalServerConfig(o, dynamicConfigFile)), { mode: 0o600 });
  const args = ['--root', o.dataDir, '--config', 'config', '--env', 'svc', '--allow-no-auth', 'start'];
  const proc = spawnManaged(o.build.server, args, { name: 'temporal-server', stopSignal: 'SIGTERM' });
  const tail = new LineTail(60);
  const onLine = (line: string) => {
    tail.push(line);
    o.onServerLog?.(line);
  };
  forEachLine(proc.child.stdout, onLine);
  forEachLine(proc.child.stderr, onLine);
  const address = `127.0.0.1:${o.port}`;
  const deadline = Date.now() + (o.startTimeoutMs ?? 120_000);
  let last = 'not started';
  for (;;) {
    if (proc.hasExited()) throw new Error(`The Temporal server ${describeExit(await proc.exited)} during startup:\n${tail}`);
    try {
      await withConnection(address, o.tls && clientTls(o.tls), (c) => c.workflowService.getSystemInfo({}));
      break;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) {
      await proc.stop(15_000);
      throw new Error(`The Temporal server did not answer on ${address} in time (${last}):\n${tail}`);
    }
    await sleep(500);
  }
  log(`Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL at ${address}`);
  return { address, pid: proc.pid, exited: proc.exited, stop: async () => void (await proc.stop(15_000)) };
}

/** The client side of `tls`: the system worker's certificate stands in for any client's. */
export function clientTls(tls: TemporalServerTls): TLSConfig {
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: readFileSync(tls.caFile),
    clientCertPair: { crt: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) },
  };
}

async function withConnection<T>(address: string, tls: TLSConfig | undefined, fn: (c: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address, tls, connectTimeout: 2_000 });
  try {
    return await fn(connection);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * Registers `namespace` with `retentionDays` and svc's search attributes, and resolves once the
 * frontend serves both (the namespace cache refreshes every few seconds). A refusal throws.
 */
export async function registerTemporalNamespace(o: {
  address: string;
  namespace: string;
  retentionDays: number;
  searchAttributes: Readonly<Record<string, SearchAttributeType>>;
  tls?: TemporalServerTls;
  timeoutMs?: number;
}): Promise<void> {
  const tls = o.tls && clientTls(o.tls);
  await withConnection(o.address, tls, async (c) => {
    await c.workflowService.registerNamespace({
      namespace: o.namespace,
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(o.retentionDays * 86_400) },
    });
    const deadline = Date.now() + (o.timeoutMs ?? 60_000);
    for (;;) {
      try {
        await c.operatorService.addSearchAttributes({
          namespace: o.namespace,
          searchAttributes: Object.fromEntries(Object.entries(o.searchAttributes).map(([k, t]) => [k, INDEXED_VALUE_TYPE[t]])),
        });
        break;
      } catch (err) {
        // Not found: the namespace is not in the frontend's cache yet.
        if ((err as { code?: number }).code !== 5 || Date.now() > deadline) throw err;
        await sleep(500);
      }
    }
    for (;;) {
      const { customAttributes } = await c.operatorService.listSearchAttributes({ namespace: o.namespace });
      if (Object.keys(o.searchAttributes).every((k) => k in (customAttributes ?? {}))) return;
      if (Date.now() > deadline) throw new Error(`search attributes not visible on ${o.namespace} in time`);
      await sleep(500);
    }
  });
}

/** temporal.api.enums.v1.IndexedValueType */
const INDEXED_VALUE_TYPE: Record<SearchAttributeType, number> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};
