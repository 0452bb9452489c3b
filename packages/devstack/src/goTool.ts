import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { svcCacheDir } from './cacheDir';
import { withFileLock } from './fileLock';
import { forEachLine, LineTail, silentLog, type Log } from './log';

/** A program svc builds once per machine from the Go module proxy into `~/.cache/svc/<name>/<version>/`. */
export interface GoTool {
  /** Names it in messages: `the Temporal server`. */
  label: string;
  /** The cache folder: `temporal-server`. */
  name: string;
  version: string;
  /** Package paths installed together, each at `version`. */
  packages: readonly string[];
  /** The binaries `go install` leaves, in `packages` order. */
  binaries: readonly string[];
  /** How long a first build takes here, for the waiting message. */
  buildMinutes: number;
}

const BUILD_TIMEOUT_MS = 30 * 60_000;

export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `${XDG_CACHE_HOME:-~/.cache}/svc/<name>/<version>` */
export function goToolCacheDir(tool: GoTool, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(svcCacheDir(env), tool.name, tool.version);
}

/** The command that builds the tool into `dir`, as a person would type it. */
export function goInstallCommand(tool: GoTool, dir: string): string {
  return `GOBIN=${dir} go install ${tool.packages.map((p) => `${p}@${tool.version}`).join(' ')}`;
}

export function goVersion(env: NodeJS.ProcessEnv = process.env): string | null {
  const r = spawnSync('go', ['version'], { env, encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim();
}

/** The error thrown when the tool is neither cached nor buildable. */
export function noGoMessage(tool: GoTool, dir: string, alternatives: string[]): string {
  return [
    `${tool.label} (${tool.version}) was not found, and Go is not installed to build it.`,
    'Do one of these, then run the command again:',
    `  - install Go (https://go.dev/dl/); it is then built automatically (about ${tool.buildMinutes} minutes, once) with:`,
    `      ${goInstallCommand(tool, dir)}`,
    ...alternatives.map((a) => `  - or ${a}`),
  ].join('\n');
}

/**
 * The directory holding the tool's binaries: the cached build, else a fresh `go install` into
 * that cache (concurrent callers, in any process, wait for one build), else an error that says
 * how to get one.
 */
export async function ensureGoTool(
  tool: GoTool,
  log: Log = silentLog,
  env: NodeJS.ProcessEnv = process.env,
  alternatives: string[] = [],
): Promise<string> {
  const dir = goToolCacheDir(tool, env);
  const built = () => tool.binaries.every((b) => isExecutableFile(path.join(dir, b)));
  if (built()) return dir;
  const go = goVersion(env);
  if (!go) throw new Error(noGoMessage(tool, dir, alternatives));
  mkdirSync(dir, { recursive: true });
  return withFileLock(path.join(dir, '.build.lock'), `the build of ${tool.label}`, log, BUILD_TIMEOUT_MS, async () => {
    // Someone may have built it while we waited for the lock.
    if (!built()) await buildGoTool(tool, dir, go, log, env);
    return dir;
  });
}

async function buildGoTool(tool: GoTool, dir: string, go: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const tmp = await mkdtemp(path.join(dir, '.build-'));
  const started = Date.now();
  log(`Building ${tool.label} ${tool.version} with ${go} (once; takes about ${tool.buildMinutes} minutes):`);
  log(`  ${goInstallCommand(tool, dir)}`);
  const tail = new LineTail(40);
  let downloads = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      // Release binaries are built without cgo; that also spares us a C toolchain.
      const childEnv: NodeJS.ProcessEnv = { ...env, GOBIN: tmp, CGO_ENABLED: env.CGO_ENABLED ?? '0' };
      delete childEnv.GOOS;
      delete childEnv.GOARCH;
      const child = spawn('go', ['install', ...tool.packages.map((p) => `${p}@${tool.version}`)], {
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
        log(`  ... still building ${tool.label} (${s}s, ${downloads} modules downloaded)`);
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
    for (const b of tool.binaries) {
      const fresh = path.join(tmp, b);
      if (!isExecutableFile(fresh)) throw new Error(`go install succeeded but ${fresh} is missing`);
      renameSync(fresh, path.join(dir, b));
    }
    log(`Built ${tool.label} in ${Math.round((Date.now() - started) / 1000)}s: ${dir}`);
  } catch (err) {
    throw new Error(
      `Building ${tool.label} failed: ${(err as Error).message}\n` +
        `Command: ${goInstallCommand(tool, dir)} (needs Go and access to the Go module proxy)\n` +
        (tail.toString() ? `Last output:\n${tail.toString()}` : ''),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The module's source directory in Go's module cache (downloaded when absent), e.g. for its schema files. */
export async function goModuleDir(modulePath: string, version: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const cwd = svcCacheDir(env); // outside any Go module
  mkdirSync(cwd, { recursive: true });
  const r = spawnSync('go', ['mod', 'download', '-json', `${modulePath}@${version}`], { env, encoding: 'utf8', cwd });
  const info = (() => {
    try {
      return JSON.parse(r.stdout) as { Dir?: string; Error?: string };
    } catch {
      return {};
    }
  })();
  if (r.status !== 0 || !info.Dir)
    throw new Error(`go mod download ${modulePath}@${version} failed: ${info.Error ?? r.stderr ?? r.error?.message}`);
  return info.Dir;
}
