import { workspaceLimits } from '@svc/domain';
import { resetSeconds } from '../ratelimit/headers';
import type { ConsoleDeps } from './deps';

/**
 * A run started from the console takes a request of the workspace's per-minute budget, the
 * counter its API keys share, so the console is no way around the plan's figure.
 */
export async function takeConsoleStart(deps: ConsoleDeps, workspaceId: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const row = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  const decision = await deps.rateLimiter.takeForWorkspace(workspaceId, workspaceLimits(row).workspacePerMin);
  return { allowed: decision.allowed, retryAfterSeconds: Math.max(1, resetSeconds(decision.current)) };
}
