import os from 'node:os';
import path from 'node:path';

/** `${XDG_CACHE_HOME:-~/.cache}/svc`: tools svc builds or installs once per machine, outside the repo. */
export function svcCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'svc');
}
