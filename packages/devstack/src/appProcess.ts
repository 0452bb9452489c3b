import { isReadyMessage } from '@svc/config';
import { LineTail, forEachLine, sleep } from './log';
import { describeExit, spawnManaged } from './processes';
import type { ExitInfo, ManagedProcess } from './processes';

export interface StartAppProcessOptions {
  /** Shown in messages. */
  name: string;
  /** The script node runs. */
  entry: string;
  nodeFlags?: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Each line the process writes (its output is otherwise kept only for error messages). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Default 120 s. */
  readyTimeoutMs?: number;
}

export interface AppProcess {
  readonly name: string;
  readonly pid: number;
  readonly process: ManagedProcess;
  readonly exited: Promise<ExitInfo>;
  /** The last lines it wrote, to explain an exit. */
  lastLines(): string;
  /** SIGTERM, then SIGKILL after `timeoutMs` (default 15 s). */
  stop(timeoutMs?: number): Promise<ExitInfo>;
}

/**
 * Starts `node <flags> <entry>` with an IPC channel and resolves once the process says it is
 * ready over it (packages/config signalReady), whatever its log level hides. Rejects, with the
 * exit and the last lines it wrote, when it dies or stays silent first; it is stopped by then.
 */
export async function startAppProcess(o: StartAppProcessOptions): Promise<AppProcess> {
  const proc = spawnManaged(process.execPath, [...(o.nodeFlags ?? []), o.entry], {
    name: o.name,
    env: o.env,
    cwd: o.cwd,
    stopSignal: 'SIGTERM',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const tail = new LineTail(40);
  for (const stream of ['stdout', 'stderr'] as const) {
    forEachLine(proc.child[stream], (line) => {
      tail.push(line);
      o.onLine?.(line, stream);
    });
  }
  // Its last words arrive after the exit: wait for its output to close (briefly) before quoting it.
  const closed = new Promise<void>((resolve) => proc.child.once('close', () => resolve()));
  const timeoutMs = o.readyTimeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    proc.child.on('message', (message) => {
      if (isReadyMessage(message)) resolve();
    });
    void proc.exited.then(async (e) => {
      await Promise.race([closed, sleep(1_000)]);
      reject(new Error(`${o.name} ${describeExit(e)} before it was ready:\n${tail}`));
    });
    timer = setTimeout(() => reject(new Error(`${o.name} was not ready within ${timeoutMs / 1000} s:\n${tail}`)), timeoutMs);
  });
  try {
    await ready;
  } catch (err) {
    await proc.stop(5_000);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return {
    name: o.name,
    pid: proc.pid,
    process: proc,
    exited: proc.exited,
    lastLines: () => tail.toString(),
    stop: (ms?: number) => proc.stop(ms),
  };
}
