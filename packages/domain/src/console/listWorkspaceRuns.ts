import type { Db } from '@svc/db';
import { decodeCursor, toPage } from '../shared/pagination';
import type { Page } from '../shared/pagination';
import { toRunView } from '../runs/runView';
import type { RunView } from '../runs/runView';

export interface WorkspaceRunFilters {
  status?: string;
  workflowId?: string;
  trigger?: string;
  /** Runs created on or after / before these instants. */
  from?: Date;
  to?: Date;
}

/** The console's runs list: every run of the workspace, newest first, filtered, cursor pages. */
export async function listWorkspaceRuns(
  db: Db,
  args: { workspaceId: string; filters: WorkspaceRunFilters; limit: number; cursor?: string },
): Promise<Page<RunView & { workflow_name: string }>> {
  const before = decodeCursor(args.cursor);
  const f = args.filters;
  const rows = await db.run.findMany({
    where: {
      workspaceId: args.workspaceId,
      ...(f.status ? { status: f.status } : {}),
      ...(f.workflowId ? { workflowId: f.workflowId } : {}),
      ...(f.trigger ? { trigger: f.trigger } : {}),
      ...(f.from || f.to ? { createdAt: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
      ...(before !== undefined ? { seq: { lt: before } } : {}),
    },
    include: { workflow: { select: { name: true } } },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, (r) => ({ ...toRunView(r), workflow_name: r.workflow.name }));
}
