import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface BuildInfo {
  /** The package version (the root package.json). */
  version: string;
  /** The git commit it was built from: SVC_GIT_COMMIT (the Dockerfile sets it from a build argument), else null. */
  commit: string | null;
}

/** What `/healthz` and the `svc_build_info` metric report; read once when a process starts. */
export function buildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  // packages/config/{src,dist}/ → the repository's root.
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
  const commit = env.SVC_GIT_COMMIT?.trim();
  return { version: pkg.version, commit: commit && /^[0-9a-f]{7,40}$/i.test(commit) ? commit.toLowerCase() : null };
}
