import { Prisma, rowsOf } from '@svc/db';
import type { SqlSource } from '@svc/db';
import { AppError } from '../errors';
import { workspaceCaps } from './caps';
import type { WorkspaceCapFields, WorkspaceCaps } from './caps';

/**
 * Locks the workspace's row against other creators of capped things (FOR NO KEY UPDATE: inserts
 * that only reference the workspace go on) and returns its caps; 404 when there is none. Call it
 * first in a transaction: what the transaction counts afterwards cannot change before it commits.
 */
export async function lockWorkspaceCaps(tx: SqlSource, workspaceId: string): Promise<WorkspaceCaps> {
  const [row] = await rowsOf<WorkspaceCapFields>(
    tx,
    Prisma.sql`SELECT plan, max_webhook_endpoints AS "maxWebhookEndpoints", max_secrets AS "maxSecrets",
                      max_review_assignees AS "maxReviewAssignees"
                 FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`,
  );
  if (!row) throw new AppError('not_found', `Workspace ${workspaceId} not found`);
  return workspaceCaps(row);
}
