import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { svcCacheDir } from './cacheDir';
import { withFileLock } from './fileLock';
import { silentLog, type Log } from './log';
import { runCommand } from './runCommand';
import { isExecutableFile } from './goTool';

/**
 * The tools the test suite drives besides Temporal and PostgreSQL, provisioned by the test setup
 * itself so `npm install && npm test` needs nothing installed by hand: Debian's Chromium (for the
 * browser tests, through playwright-core, which never downloads a browser), Schemathesis (the
 * API fuzzer), the Python Standard Webhooks library (a receiver's verifier) and
 * openapi-python-client (the Python client generator), each pinned, in a virtualenv of its own
 * under the svc cache.
 */

export const SCHEMATHESIS_VERSION = '4.32.5';
export const STANDARDWEBHOOKS_VERSION = '1.1.0';
export const OPENAPI_PYTHON_CLIENT_VERSION = '0.29.1';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/**
 * Path of a Chromium: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`, installed with apt when
 * it is missing and we run as root; otherwise an error that names the command to run.
 */
export async function ensureChromium(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.CHROMIUM_PATH) {
    if (isExecutableFile(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
    throw new Error(`CHROMIUM_PATH is set to "${env.CHROMIUM_PATH}", but there is no executable file there.`);
  }
  if (isExecutableFile(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  const root = process.getuid?.() === 0;
  if (!root || !isExecutableFile('/usr/bin/apt-get')) {
    throw new Error(
      "The browser tests need Debian's Chromium, which is not installed. Install it with\n" +
        '  sudo apt-get update && sudo apt-get install -y chromium\n' +
        'or set CHROMIUM_PATH to an existing Chromium binary, then run the tests again.',
    );
  }
  const lockDir = svcCacheDir(env);
  mkdirSync(lockDir, { recursive: true });
  return withFileLock(path.join(lockDir, '.apt.lock'), 'the Chromium install', log, INSTALL_TIMEOUT_MS, async () => {
    if (isExecutableFile(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
    const started = Date.now();
    log("Installing Debian's Chromium for the browser tests (once): apt-get install -y chromium");
    const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
    await runCommand('apt-get', ['update', '-qq'], aptEnv);
    await runCommand('apt-get', ['install', '-y', '-qq', 'chromium'], aptEnv);
    if (!isExecutableFile(DEBIAN_CHROMIUM)) throw new Error(`apt-get installed chromium, but ${DEBIAN_CHROMIUM} is missing`);
    log(`Installed Chromium in ${Math.round((Date.now() - started) / 1000)}s: ${DEBIAN_CHROMIUM}`);
    return DEBIAN_CHROMIUM;
  });
}

/** `${XDG_CACHE_HOME:-~/.cache}/svc/schemathesis/4.32.5`: a virtualenv holding only Schemathesis. */
export function schemathesisVenvDir(env: NodeJS.ProcessEnv = process.env): string {
  return venvDir('schemathesis', SCHEMATHESIS_VERSION, env);
}

const venvDir = (pkg: string, version: string, env: NodeJS.ProcessEnv) => path.join(svcCacheDir(env), pkg, version);

/**
 * The Python interpreter that runs Schemathesis (`python -m schemathesis.cli`): `SCHEMATHESIS_PYTHON`,
 * else the project's virtualenv, created with `python3 -m venv` and filled from PyPI on first use.
 */
export async function ensureSchemathesis(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return ensurePythonVenv(
    { label: 'Schemathesis', pkg: 'schemathesis', version: SCHEMATHESIS_VERSION, override: 'SCHEMATHESIS_PYTHON' },
    log,
    env,
  );
}

/**
 * A Python interpreter with the official Standard Webhooks library (`import standardwebhooks`), for
 * the tests that verify deliveries as a Python receiver would: `STANDARDWEBHOOKS_PYTHON`, else a
 * virtualenv of its own under the svc cache, filled from PyPI on first use.
 */
export async function ensureStandardWebhooksPython(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return ensurePythonVenv(
    { label: 'standardwebhooks', pkg: 'standardwebhooks', version: STANDARDWEBHOOKS_VERSION, override: 'STANDARDWEBHOOKS_PYTHON' },
    log,
    env,
  );
}

/**
 * A Python interpreter with openapi-python-client (`python -m openapi_python_client`), whose
 * virtualenv also holds what the clients it generates import (httpx, attrs, python-dateutil) and
 * the formatter it runs (ruff, in the same `bin/`): `OPENAPI_PYTHON_CLIENT_PYTHON`, else a
 * virtualenv of its own under the svc cache, filled from PyPI on first use.
 */
export async function ensureOpenApiPythonClient(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return ensurePythonVenv(
    {
      label: 'openapi-python-client',
      pkg: 'openapi-python-client',
      version: OPENAPI_PYTHON_CLIENT_VERSION,
      override: 'OPENAPI_PYTHON_CLIENT_PYTHON',
    },
    log,
    env,
  );
}

interface PythonPackage {
  label: string;
  /** The PyPI name, installed at exactly `version`. */
  pkg: string;
  version: string;
  /** The variable that names a ready interpreter instead. */
  override: string;
}

/**
 * The interpreter `p.override` names, else `${XDG_CACHE_HOME:-~/.cache}/svc/<pkg>/<version>/bin/python`,
 * made once (locked against concurrent runs).
 */
async function ensurePythonVenv(p: PythonPackage, log: Log, env: NodeJS.ProcessEnv): Promise<string> {
  const given = env[p.override];
  if (given) return given;
  const dir = venvDir(p.pkg, p.version, env);
  const python = path.join(dir, 'bin', 'python');
  // Written last, so a half-made virtualenv is never taken for a finished one.
  const done = path.join(dir, '.installed');
  if (existsSync(done)) return python;
  mkdirSync(path.dirname(dir), { recursive: true });
  return withFileLock(`${dir}.lock`, `the ${p.label} install`, log, INSTALL_TIMEOUT_MS, async () => {
    if (existsSync(done)) return python;
    const started = Date.now();
    log(`Installing ${p.label} ${p.version} into ${dir} (once)`);
    rmSync(dir, { recursive: true, force: true });
    const python3 = env.PYTHON ?? 'python3';
    try {
      await runCommand(python3, ['-m', 'venv', dir], env);
      await runCommand(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `${p.pkg}==${p.version}`], env);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `Installing ${p.label} failed (needs ${python3} with its venv module, and PyPI): ${(err as Error).message}\n` +
          `Or set ${p.override} to a Python that has ${p.pkg} installed.`,
      );
    }
    writeFileSync(done, `${new Date().toISOString()}\n`);
    log(`Installed ${p.label} in ${Math.round((Date.now() - started) / 1000)}s`);
    return python;
  });
}
