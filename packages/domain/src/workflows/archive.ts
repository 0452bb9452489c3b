import type { Db } from '@svc/db';
import { AppError } from '../errors';

/**
 * Archiving retires a workflow without losing its history: it leaves the lists (API and
 * console), starts no new runs (the API answers 404 `workflow_not_found`, its trigger URL 404
 * like an unknown one), and keeps every run and version. Restoring brings all of it back.
 */
async function update(
  db: Db,
  args: { workspaceId: string; workflowId: string },
  data: { archivedAt?: Date | null; triggerEnabled?: boolean },
) {
  const { count } = await db.workflow.updateMany({ where: { id: args.workflowId, workspaceId: args.workspaceId }, data });
  if (count === 0) throw new AppError('workflow_not_found', `Workflow ${args.workflowId} not found`);
}

export async function archiveWorkflow(db: Db, args: { workspaceId: string; workflowId: string }): Promise<void> {
  await update(db, args, { archivedAt: new Date() });
}

export async function restoreWorkflow(db: Db, args: { workspaceId: string; workflowId: string }): Promise<void> {
  await update(db, args, { archivedAt: null });
}

/** A trigger turned off answers 404 like an unknown trigger until it is turned on again. */
export async function setTriggerEnabled(db: Db, args: { workspaceId: string; workflowId: string; enabled: boolean }): Promise<void> {
  await update(db, args, { triggerEnabled: args.enabled });
}
