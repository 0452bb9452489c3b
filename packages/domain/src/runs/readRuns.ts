import { jsonRow, Prisma, rowsOf } from '@svc/db';
import type { Db, SqlSource } from '@svc/db';
import { AppError } from '../errors';
import { decodeCursor, toPage } from '../shared/pagination';
import type { Page } from '../shared/pagination';
import { findWorkflow } from '../workflows/workflows';
import { RUN_SUMMARY_COLUMNS, toRunSummary, toRunView } from './runView';
import type { RunSummaryView, RunView } from './runView';

type JsonDates<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };
type RunRow = Parameters<typeof toRunView>[0];
type StepRow = NonNullable<Parameters<typeof toRunView>[1]>['steps'][number];
type ReviewRow = NonNullable<Parameters<typeof toRunView>[1]>['reviews'][number];

const date = (v: string | null): Date | null => (v === null ? null : new Date(v));

type RunReadRow = RunRow & { steps: JsonDates<StepRow>[]; review: JsonDates<ReviewRow> | null };

/** Where a run's rows are read from: the tables, or a statement's own CTEs (a run just written). */
export interface RunSources {
  runs: Prisma.Sql;
  steps: Prisma.Sql;
}
const TABLES: RunSources = { runs: Prisma.sql`runs`, steps: Prisma.sql`run_steps` };

/**
 * A run of a workspace with its steps and latest review, as ONE statement's row: the steps and
 * the review come back as JSON beside the run's columns.
 */
function runSelect(runId: string, workspaceId: string, from: RunSources = TABLES): Prisma.Sql {
  return Prisma.sql`
    SELECT r.id, r.workspace_id AS "workspaceId", r.workflow_id AS "workflowId", r.workflow_version AS "workflowVersion",
           r.status, r.input, r.output, r.error, r.trigger, r.idempotency_key AS "idempotencyKey",
           r.created_at AS "createdAt", r.started_at AS "startedAt", r.finished_at AS "finishedAt", r.seq,
           COALESCE((SELECT json_agg(json_build_object(
                       'runId', s.run_id, 'key', s.key, 'position', s.position, 'name', s.name, 'type', s.type,
                       'status', s.status, 'attempts', s.attempts, 'startedAt', s.started_at, 'finishedAt', s.finished_at,
                       'output', s.output, 'error', s.error) ORDER BY s.position)
                     FROM ${from.steps} s WHERE s.run_id = r.id), '[]'::json) AS steps,
           (SELECT json_build_object(
                     'id', v.id, 'runId', v.run_id, 'stepKey', v.step_key, 'status', v.status, 'title', v.title,
                     'instructions', v.instructions, 'assignees', v.assignees, 'data', v.data,
                     'requestedAt', v.requested_at, 'expiresAt', v.expires_at, 'decision', v.decision,
                     'decidedBy', v.decided_by, 'decidedViaType', v.decided_via_type, 'decidedViaId', v.decided_via_id,
                     'decidedAt', v.decided_at, 'comment', v.comment)
              FROM reviews v WHERE v.run_id = r.id ORDER BY v.requested_at DESC LIMIT 1) AS review
      FROM ${from.runs} r
     WHERE r.id = ${runId} AND r.workspace_id = ${workspaceId}`;
}

/** The view of a runSelect row; none is 404 (a foreign id exactly like a missing one). */
function runFromRow(row: RunReadRow | undefined, runId: string): RunView {
  if (!row) throw new AppError('run_not_found', `Run ${runId} not found`);
  const { steps, review, ...run } = row;
  return toRunView(run, {
    steps: steps.map((st) => ({ ...st, startedAt: date(st.startedAt), finishedAt: date(st.finishedAt) })),
    reviews: review
      ? [
          {
            ...review,
            requestedAt: new Date(review.requestedAt),
            expiresAt: new Date(review.expiresAt),
            decidedAt: date(review.decidedAt),
          },
        ]
      : [],
  });
}

/** A run of this workspace with its steps and latest review, in ONE statement (the hot path of polling clients). */
export async function getRun(db: SqlSource, args: { workspaceId: string; runId: string }): Promise<RunView> {
  const rows = await rowsOf<RunReadRow>(db, runSelect(args.runId, args.workspaceId));
  return runFromRow(rows[0], args.runId);
}

/** runSelect's row as one JSON value (its times as text), for a statement that reads it with other things. */
export function runSelectJson(runId: string, workspaceId: string, from: RunSources = TABLES): Prisma.Sql {
  return jsonRow(runSelect(runId, workspaceId, from));
}

/** The view of a runSelectJson value; null is 404. */
export function runFromJson(value: unknown, runId: string): RunView {
  const row = value as JsonDates<RunReadRow> | null;
  return runFromRow(
    row ? { ...row, createdAt: new Date(row.createdAt), startedAt: date(row.startedAt), finishedAt: date(row.finishedAt) } : undefined,
    runId,
  );
}

/** A workflow's runs, newest first, as summaries: the data columns are not even read. */
export async function listRuns(
  db: Db,
  args: { workspaceId: string; workflowId: string; status?: string; limit: number; cursor?: string },
): Promise<Page<RunSummaryView>> {
  await findWorkflow(db, args.workspaceId, args.workflowId);
  const before = decodeCursor(args.cursor);
  const rows = await db.run.findMany({
    where: {
      workflowId: args.workflowId,
      workspaceId: args.workspaceId,
      ...(args.status ? { status: args.status } : {}),
      ...(before !== undefined ? { seq: { lt: before } } : {}),
    },
    select: RUN_SUMMARY_COLUMNS,
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, toRunSummary);
}
