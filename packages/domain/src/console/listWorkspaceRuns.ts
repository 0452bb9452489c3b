import type { Db } from '@svc/db';
import { decodeCursor, toPage } from '../shared/pagination';
import type { Page } from '../shared/pagination';
import { RUN_SUMMARY_COLUMNS, toRunSummary } from '../runs/runView';
import type { RunSummaryView } from '../runs/runView';

export interface WorkspaceRunFilters {
  status?: string;
  workflowId?: string;
  trigger?: string;
  /** Runs created on or after / before these instants. */
  from?: Date;
  to?: Date;
}

/** The console's runs list: every run of the workspace, newest first, filtered, cursor pages (summaries: no run data read). */
export async function listWorkspaceRuns(
  db: Db,
  args: { workspaceId: string; filters: WorkspaceRunFilters; limit: number; cursor?: string },
): Promise<Page<RunSummaryView & { workflow_name: string }>> {
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
    select: { ...RUN_SUMMARY_COLUMNS, workflow: { select: { name: true } } },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, (r) => ({ ...toRunSummary(r), workflow_name: r.workflow.name }));
}
