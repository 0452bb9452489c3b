import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The root package's name: the directory holding it is the repository root. */
const ROOT_PACKAGE = 'svc';

function isRepositoryRoot(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; workspaces?: unknown };
    return pkg.name === ROOT_PACKAGE && Array.isArray(pkg.workspaces);
  } catch {
    return false;
  }
}

/** The nearest directory at or above `start` that is the root of an svc repository, or null. */
export function findRepositoryRoot(start: string): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (isRepositoryRoot(dir)) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Where `npm start` keeps its data (and `stack.json`): DATA_DIR when set (relative to the current
 * directory), else `.data` at the root of the repository the current directory is in, else at
 * the root of the repository this CLI belongs to (an installed `svc` run from elsewhere).
 */
export function stackDataDir(env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  if (env.DATA_DIR) return path.resolve(cwd, env.DATA_DIR);
  const root = findRepositoryRoot(cwd) ?? findRepositoryRoot(__dirname);
  return path.join(root ?? cwd, '.data');
}
