import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { appLaunch } from '@svc/config';
import type { AppName } from '@svc/config';
import { startAppProcess } from '@svc/devstack';

export const ROOT = path.resolve(__dirname, '../..');

export interface Spawned {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function stopper(child: ChildProcess): Spawned['stop'] {
  return (signal = 'SIGTERM') => {
    // Ended already (by an exit code or, after a kill, by a signal).
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
    return new Promise((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill(signal);
    });
  };
}

/**
 * Starts a built app as `npm start` does (its node flags and process defaults, appLaunch) and
 * resolves once it said it is ready (startAppProcess).
 */
export async function spawnApp(name: AppName, env: Record<string, string>, timeoutMs = 60_000): Promise<Spawned> {
  let out = '';
  const launch = appLaunch(name, { ...process.env, ...env });
  const app = await startAppProcess({
    name,
    entry: path.join(ROOT, launch.entry),
    nodeFlags: launch.nodeFlags,
    env: launch.env,
    onLine: (line) => (out += `${line}\n`),
    readyTimeoutMs: timeoutMs,
  });
  const child = app.process.child;
  return { child, output: () => out, stop: stopper(child) };
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
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
  return { child, output: () => out, stop: stopper(child) };
}
