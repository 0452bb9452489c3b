import path from 'node:path';
import { ensureGoTool } from './goTool';
import type { GoTool } from './goTool';
import { silentLog, type Log } from './log';

/** Caddy, the Compose file's load balancer, built from the Go module proxy (the release the `caddy:2.11` image carries). */
export const CADDY_VERSION = 'v2.11.9';

const CADDY_TOOL: GoTool = {
  label: 'Caddy',
  name: 'caddy',
  version: CADDY_VERSION,
  packages: ['github.com/caddyserver/caddy/v2/cmd/caddy'],
  binaries: ['caddy'],
  buildMinutes: 4,
};

/** The `caddy` binary, built once per machine into ~/.cache/svc/caddy/<version>. */
export async function ensureCaddy(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return path.join(await ensureGoTool(CADDY_TOOL, log, env), 'caddy');
}
