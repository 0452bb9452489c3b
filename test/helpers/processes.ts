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
