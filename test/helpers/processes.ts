import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface Spawned {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a built app (`apps/<name>/dist/main.js`) and resolves once its log shows `ready`. */
export function spawnApp(name: 'gateway' | 'worker', env: Record<string, string>, ready: RegExp, timeoutMs = 60_000): Promise<Spawned> {
  return spawnReady(name, process.execPath, [path.join(ROOT, `apps/${name}/dist/main.js`)], env, ready, timeoutMs);
}

/** Starts `command` and resolves once its output (stdout or stderr) matches `ready`; `name` labels errors. */
export async function spawnReady(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<Spawned> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    output: () => out,
    stop(signal = 'SIGTERM') {
      // Ended already (by an exit code or, after a kill, by a signal).
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
