import type { Db } from '@svc/db';
import { AppError } from '../errors';
import { decodeCursor, toPage } from '../shared/pagination';
import type { Page } from '../shared/pagination';
import { findWorkflow } from '../workflows/workflows';
import { toRunView } from './runView';
import type { RunView } from './runView';

/** A run of this workspace with steps and review; a foreign id is 404 exactly like a missing one. */
export async function getRun(db: Db, args: { workspaceId: string; runId: string }): Promise<RunView> {
  const row = await db.run.findFirst({
    where: { id: args.runId, workspaceId: args.workspaceId },
    include: { steps: true, reviews: true },
  });
  if (!row) throw new AppError('run_not_found', `Run ${args.runId} not found`);
  return toRunView(row, { steps: row.steps, reviews: row.reviews });
}

export async function listRuns(
  db: Db,
  args: { workspaceId: string; workflowId: string; status?: string; limit: number; cursor?: string },
): Promise<Page<RunView>> {
  await findWorkflow(db, args.workspaceId, args.workflowId);
  const before = decodeCursor(args.cursor);
  const rows = await db.run.findMany({
    where: {
      workflowId: args.workflowId,
      workspaceId: args.workspaceId,
      ...(args.status ? { status: args.status } : {}),
      ...(before !== undefined ? { seq: { lt: before } } : {}),
    },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, (r) => toRunView(r));
}
