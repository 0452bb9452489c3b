import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { svcCacheDir } from './cacheDir';
import { withFileLock } from './fileLock';
import { forEachLine, LineTail, silentLog, type Log } from './log';

/**
 * The Temporal CLI carries the real Temporal server (`temporal server start-dev`) and its
 * Web UI. No package manager ships it here, but the Go module proxy does: v1.5.1 is the newest
 * tag that installs with a plain `go install`.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

const BINARY_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const BUILD_TIMEOUT_MS = 30 * 60_000;

/** `${XDG_CACHE_HOME:-~/.cache}/svc/temporal-cli/v1.5.1` */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(svcCacheDir(env), 'temporal-cli', TEMPORAL_CLI_VERSION);
}

/** Where the built binary is cached. */
export function cachedTemporalCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(temporalCliCacheDir(env), BINARY_NAME);
}

/** The command that builds the CLI into `dir`, as a person would type it. */
export function temporalCliBuildCommand(dir: string): string {
  return `GOBIN=${dir} go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`;
}

export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function goVersion(env: NodeJS.ProcessEnv): string | null {
  const r = spawnSync('go', ['version'], { env, encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim();
}

/** The version a `temporal --version` line names (`temporal version 1.5.1 (Server …)`), as numbers. */
function cliVersionOf(text: string): number[] | null {
  const m = /temporal version v?(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? m.slice(1).map(Number) : null;
}

const atLeast = (v: number[], min: number[]) => {
  for (let i = 0; i < min.length; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
};

/** A `temporal` binary on PATH that answers `--version` with TEMPORAL_CLI_VERSION or newer, if any. */
export function temporalCliOnPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const min = cliVersionOf(`temporal version ${TEMPORAL_CLI_VERSION}`) as number[];
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, BINARY_NAME);
    if (!isExecutableFile(candidate)) continue;
    const r = spawnSync(candidate, ['--version'], { env, encoding: 'utf8', timeout: 10_000 });
    const version = r.status === 0 ? cliVersionOf(r.stdout) : null;
    if (version && atLeast(version, min)) return candidate;
  }
  return null;
}

/**
 * Path of a Temporal CLI binary, building it when needed:
 * 1. `TEMPORAL_CLI_PATH` (must point at an executable file);
 * 2. a `temporal` on PATH, TEMPORAL_CLI_VERSION or newer;
 * 3. the cached build at `${XDG_CACHE_HOME:-~/.cache}/svc/temporal-cli/v1.5.1/temporal`;
 * 4. a fresh `go install` into that cache (takes ~5 minutes; concurrent callers wait for one build);
 * 5. otherwise an error that says how to get one.
 */
export async function ensureTemporalCli(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const override = env.TEMPORAL_CLI_PATH;
  if (override) {
    const p = path.resolve(override);
    if (isExecutableFile(p)) return p;
    throw new Error(
      `TEMPORAL_CLI_PATH is set to "${override}", but there is no executable file there. ` +
        `Point it at a Temporal CLI binary (\`temporal\`, ${TEMPORAL_CLI_VERSION} or newer), or unset it to use ` +
        `the cached build at ${cachedTemporalCliPath(env)} (built automatically when Go is installed).`,
    );
  }

  const onPath = temporalCliOnPath(env);
  if (onPath) return onPath;

  const target = cachedTemporalCliPath(env);
  if (isExecutableFile(target)) return target;

  const dir = path.dirname(target);
  const go = goVersion(env);
  if (!go) {
    throw new Error(
      [
        'The Temporal CLI (which contains the Temporal dev server) was not found, and Go is not installed to build it.',
        'Do one of these, then run the command again:',
        `  - install Go >= 1.23 (https://go.dev/dl/); it is then built automatically (about 5 minutes, once) with:`,
        `      ${temporalCliBuildCommand(dir)}`,
        `  - or put a \`temporal\` binary (${TEMPORAL_CLI_VERSION} or newer, e.g. from https://github.com/temporalio/cli/releases)`,
        '    on PATH, or set TEMPORAL_CLI_PATH to one.',
      ].join('\n'),
    );
  }

  mkdirSync(dir, { recursive: true });
  return withFileLock(path.join(dir, '.build.lock'), 'the Temporal CLI build', log, BUILD_TIMEOUT_MS, async () => {
    // Someone may have built it while we waited for the lock.
    if (isExecutableFile(target)) return target;
    await buildTemporalCli(dir, target, go, log, env);
    return target;
  });
}

async function buildTemporalCli(dir: string, target: string, go: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const tmp = await mkdtemp(path.join(dir, '.build-'));
  const started = Date.now();
  log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with ${go} (once; takes about 5 minutes):`);
  log(`  ${temporalCliBuildCommand(dir)}`);
  const tail = new LineTail(40);
  let downloads = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      // The official release binaries are built without cgo; that also spares us a C toolchain.
      const childEnv: NodeJS.ProcessEnv = { ...env, GOBIN: tmp, CGO_ENABLED: env.CGO_ENABLED ?? '0' };
      delete childEnv.GOOS;
      delete childEnv.GOARCH;
      const child = spawn('go', ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
        env: childEnv,
        cwd: tmp, // outside any Go module, so go.mod files around the caller do not interfere
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const onLine = (line: string): void => {
        tail.push(line);
        if (line.startsWith('go: downloading')) downloads++;
      };
      forEachLine(child.stdout, onLine);
      forEachLine(child.stderr, onLine);
      const heartbeat = setInterval(() => {
        const s = Math.round((Date.now() - started) / 1000);
        log(`  ... still building the Temporal CLI (${s}s, ${downloads} modules downloaded)`);
      }, 30_000);
      const timeout = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
      child.once('error', (err) => {
        clearInterval(heartbeat);
        clearTimeout(timeout);
        reject(err);
      });
      child.once('close', (code, signal) => {
        clearInterval(heartbeat);
        clearTimeout(timeout);
        if (code === 0) resolve();
        else reject(new Error(`go install ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`));
      });
    });
    const built = path.join(tmp, BINARY_NAME);
    if (!isExecutableFile(built)) throw new Error(`go install succeeded but ${built} is missing`);
    renameSync(built, target);
    log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)}s: ${target}`);
  } catch (err) {
    throw new Error(
      `Building the Temporal CLI failed: ${(err as Error).message}\n` +
        `Command: ${temporalCliBuildCommand(dir)} (needs Go >= 1.23 and access to the Go module proxy)\n` +
        `Or set TEMPORAL_CLI_PATH to an existing \`temporal\` binary.\n` +
        (tail.toString() ? `Last output:\n${tail.toString()}` : ''),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
