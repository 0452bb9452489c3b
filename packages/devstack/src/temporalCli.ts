import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureGoTool, goInstallCommand, goToolCacheDir, isExecutableFile } from './goTool';
import type { GoTool } from './goTool';
import { silentLog, type Log } from './log';

/**
 * The Temporal CLI carries the real Temporal server (`temporal server start-dev`) and its
 * Web UI. No package manager ships it here, but the Go module proxy does: v1.5.1 is the newest
 * tag that installs with a plain `go install`.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

const BINARY_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

const TEMPORAL_CLI_TOOL: GoTool = {
  label: 'The Temporal CLI (which contains the Temporal dev server)',
  name: 'temporal-cli',
  version: TEMPORAL_CLI_VERSION,
  packages: [TEMPORAL_CLI_MODULE],
  binaries: [BINARY_NAME],
  buildMinutes: 5,
};

/** `${XDG_CACHE_HOME:-~/.cache}/svc/temporal-cli/v1.5.1` */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return goToolCacheDir(TEMPORAL_CLI_TOOL, env);
}

/** Where the built binary is cached. */
export function cachedTemporalCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(temporalCliCacheDir(env), BINARY_NAME);
}

/** The command that builds the CLI into `dir`, as a person would type it. */
export function temporalCliBuildCommand(dir: string): string {
  return goInstallCommand(TEMPORAL_CLI_TOOL, dir);
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
 * 4. a fresh `go install` into that cache (ensureGoTool: ~5 minutes; concurrent callers wait for one build);
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

  const dir = await ensureGoTool(TEMPORAL_CLI_TOOL, log, env, [
    `put a \`temporal\` binary (${TEMPORAL_CLI_VERSION} or newer, e.g. from https://github.com/temporalio/cli/releases)`,
    '    on PATH, or set TEMPORAL_CLI_PATH to one.',
  ]);
  return path.join(dir, BINARY_NAME);
}
