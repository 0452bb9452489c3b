import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { sleep } from './log';

/**
 * Child processes that must not outlive this process.
 *
 * - On Linux with util-linux `setpriv --pdeathsig`, the child is started through it, so the
 *   kernel signals the child when this process dies, even by SIGKILL. Such children also get
 *   their own process group, so a terminal's Ctrl-C reaches only this process, which then
 *   stops them in the order it chooses.
 * - Elsewhere the child stays in our process group (a terminal's Ctrl-C reaches it too).
 * - In every case, children still alive when this process exits get their stop signal.
 */

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  error?: Error;
}

export interface ManagedProcessOptions {
  /** Shown in messages. */
  name: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** Signal asking for a graceful stop (default SIGTERM; PostgreSQL wants SIGINT, a "fast" shutdown). */
  stopSignal?: NodeJS.Signals;
  /** Default ['ignore', 'pipe', 'pipe']. */
  stdio?: StdioOptions;
}

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** True once stop() was called. */
  isStopping(): boolean;
  /**
   * Sends the stop signal, waits up to `timeoutMs` (default 15 s), then SIGKILLs the whole
   * process group (or the process). Idempotent; resolves when the process has exited.
   */
  stop(timeoutMs?: number): Promise<ExitInfo>;
}

let pdeathsig: boolean | undefined;

/** Whether children can be tied to our lifetime by the kernel (Linux + setpriv --pdeathsig). */
export function supportsParentDeathSignal(): boolean {
  if (pdeathsig === undefined) {
    if (process.platform !== 'linux') {
      pdeathsig = false;
    } else {
      const r = spawnSync('setpriv', ['--help'], { encoding: 'utf8' });
      pdeathsig = r.status === 0 && /--pdeathsig/.test(`${r.stdout}${r.stderr}`);
    }
  }
  return pdeathsig;
}

const live = new Set<ManagedProcess & { signal(sig: NodeJS.Signals, group: boolean): void; stopSignal: NodeJS.Signals }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) {
      if (!p.hasExited()) p.signal(p.stopSignal, false);
    }
  });
}

/** Whether a process with this pid exists (EPERM counts as alive). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The argv of a live process (Linux /proc), or null when unknown. */
export function processArgv(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((s, i, a) => s !== '' || i < a.length - 1);
  } catch {
    return null;
  }
}

/** Waits until `pid` is gone, for at most `timeoutMs`; returns whether it is gone. */
export async function waitForPidExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(100);
  }
  return !isProcessAlive(pid);
}

/**
 * Stops a process that is not our child (e.g. left behind by an earlier crashed run):
 * `signal`, then SIGKILL after `timeoutMs`.
 */
export async function terminatePid(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  if (await waitForPidExit(pid, timeoutMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitForPidExit(pid, 5_000);
}

export function spawnManaged(command: string, args: string[], options: ManagedProcessOptions): ManagedProcess {
  installExitHook();
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  const tied = supportsParentDeathSignal();
  // PR_SET_PDEATHSIG is cleared when credentials change, so setpriv must run after the
  // uid/gid switch (which node performs before exec) — which is the case here.
  const [file, argv] = tied ? ['setpriv', ['--pdeathsig', stopSignal.replace(/^SIG/, ''), '--', command, ...args]] : [command, args];
  const child = spawn(file, argv, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    uid: options.uid,
    gid: options.gid,
    stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'],
    detached: tied,
  });

  let done: ExitInfo | undefined;
  let stopping = false;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      done = { code, signal };
      resolve(done);
    });
    child.once('error', (error) => {
      // 'error' without a pid: it never started; with a pid, 'exit' follows.
      if (child.pid === undefined) {
        done = { code: null, signal: null, error };
        resolve(done);
      }
    });
  });

  const signal = (sig: NodeJS.Signals, group: boolean): void => {
    if (done || child.pid === undefined) return;
    try {
      process.kill(group && tied ? -child.pid : child.pid, sig);
    } catch {
      /* already gone */
    }
  };

  const managed = {
    name: options.name,
    child,
    pid: child.pid ?? -1,
    exited,
    stopSignal,
    signal,
    hasExited: () => done !== undefined,
    isStopping: () => stopping,
    async stop(timeoutMs = 15_000): Promise<ExitInfo> {
      stopping = true;
      if (done) return done;
      signal(stopSignal, false);
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        signal('SIGKILL', true);
      }
      return exited;
    },
  };
  live.add(managed);
  void exited.then(() => live.delete(managed));
  return managed;
}

export function describeExit(e: ExitInfo): string {
  if (e.error) return `could not start: ${e.error.message}`;
  if (e.signal) return `killed by ${e.signal}`;
  return `exited with code ${e.code}`;
}
