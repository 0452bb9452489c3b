import { APP_PROCESSES } from './appProcesses';
import type { AppName } from './appProcesses';
import { loadConfig } from './config';

export interface AppLaunch {
  /** The built entry point, relative to the repository's root. */
  entry: string;
  nodeFlags: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * How to start `name` under `env`: its configured node flags (`GATEWAY_NODE_FLAGS` /
 * `WORKER_NODE_FLAGS`, APP_PROCESSES by default) and the process defaults beneath env's own values.
 */
export function appLaunch(name: AppName, env: NodeJS.ProcessEnv = process.env): AppLaunch {
  const config = loadConfig(env);
  return {
    entry: APP_PROCESSES[name].entry,
    nodeFlags: name === 'gateway' ? config.GATEWAY_NODE_FLAGS : config.WORKER_NODE_FLAGS,
    env: { ...APP_PROCESSES[name].env, ...env },
  };
}
