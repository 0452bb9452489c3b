import type { Db, RunGetPayload } from '@svc/db';
import { decidedViaOf } from '../reviews/decidedVia';
import type { DecidedVia } from '../reviews/decidedVia';
import { durationMs, iso } from '../shared/time';

export interface StepView {
  key: string;
  name: string;
  type: string;
  status: string;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  output: unknown;
  error: unknown;
}

export interface ReviewView {
  id: string;
  step_key: string;
  status: string;
  title: string;
  instructions: string;
  assignees: string[];
  data: unknown;
  requested_at: string | null;
  expires_at: string | null;
  decision: string | null;
  decided_by: string | null;
  decided_via: DecidedVia | null;
  decided_at: string | null;
  comment: string | null;
}

export interface RunView {
  id: string;
  workflow_id: string;
  workflow_version: number;
  status: string;
  input: unknown;
  output: unknown;
  error: { code: string; message: string; step_key: string | null } | null;
  steps?: StepView[];
  review?: ReviewView | null;
  trigger: string;
  idempotency_key: string | null;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

/** A run as lists show it: without its data (input, output, steps), so a page stays small whatever the runs hold. */
export type RunSummaryView = Omit<RunView, 'input' | 'output' | 'steps' | 'review'>;

/** The columns a run summary reads: never the data columns. */
export const RUN_SUMMARY_COLUMNS = {
  id: true,
  workflowId: true,
  workflowVersion: true,
  status: true,
  error: true,
  trigger: true,
  idempotencyKey: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  seq: true,
} as const;

type RunSummaryRow = RunGetPayload<{ select: typeof RUN_SUMMARY_COLUMNS }>;
type RunRow = Awaited<ReturnType<Db['run']['findUniqueOrThrow']>>;
type StepRow = Awaited<ReturnType<Db['runStep']['findUniqueOrThrow']>>;
type ReviewRow = Awaited<ReturnType<Db['review']['findUniqueOrThrow']>>;

export function toStepView(s: StepRow): StepView {
  return {
    key: s.key,
    name: s.name,
    type: s.type,
    status: s.status,
    attempts: s.attempts,
    started_at: iso(s.startedAt),
    finished_at: iso(s.finishedAt),
    duration_ms: durationMs(s.startedAt, s.finishedAt),
    output: s.output ?? null,
    error: s.error ?? null,
  };
}

export function toReviewView(r: ReviewRow): ReviewView {
  return {
    id: r.id,
    step_key: r.stepKey,
    status: r.status,
    title: r.title,
    instructions: r.instructions,
    assignees: r.assignees,
    data: r.data ?? null,
    requested_at: iso(r.requestedAt),
    expires_at: iso(r.expiresAt),
    decision: r.decision,
    decided_by: r.decidedBy,
    decided_via: decidedViaOf(r),
    decided_at: iso(r.decidedAt),
    comment: r.comment,
  };
}

/** A run as lists show it. */
export function toRunSummary(r: RunSummaryRow): RunSummaryView {
  return {
    id: r.id,
    workflow_id: r.workflowId,
    workflow_version: r.workflowVersion,
    status: r.status,
    error: (r.error as RunView['error']) ?? null,
    trigger: r.trigger,
    idempotency_key: r.idempotencyKey,
    created_at: iso(r.createdAt),
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration_ms: durationMs(r.startedAt, r.finishedAt),
  };
}

/** The run resource; `steps`/`review` only when given. */
export function toRunView(r: RunRow, extra?: { steps: StepRow[]; reviews: ReviewRow[] }): RunView {
  const { id, workflow_id, workflow_version, status, ...rest } = toRunSummary(r);
  const view: RunView = { id, workflow_id, workflow_version, status, input: r.input, output: r.output ?? null, ...rest };
  if (extra) {
    view.steps = [...extra.steps].sort((a, b) => a.position - b.position).map(toStepView);
    // The review a run shows is the latest one requested (a run may pass several review steps).
    const latest = [...extra.reviews].sort((a, b) => b.requestedAt.getTime() - a.requestedAt.getTime())[0];
    view.review = latest ? toReviewView(latest) : null;
  }
  return view;
}
