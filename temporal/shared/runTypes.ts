import type { ExpressionContext, LaunchRequest, StepDefinition } from '@svc/domain';

export type RunStatus = 'queued' | 'running' | 'waiting_for_review' | 'succeeded' | 'failed' | 'cancelled';
export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';
export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting_for_review' | 'cancelled';

/** A run has ended. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
/** Where `wait` stops: the run has ended or waits for a person. */
export const SETTLED_STATUSES: readonly RunStatus[] = [...TERMINAL_STATUSES, 'waiting_for_review'];

/**
 * The run workflow's argument: ids and the definition pinned at start, never the run's data.
 * Activities read the input and step outputs from PostgreSQL and write outputs there, so a
 * run's history does not grow with its data.
 */
export type RunWorkflowInput = Omit<LaunchRequest, 'input'>;

/** What a launch hands Temporal: the launch without its input. */
export function runWorkflowInput(req: LaunchRequest): RunWorkflowInput {
  const { input: _input, ...ids } = req;
  return ids;
}

export interface RunError {
  code: string;
  message: string;
  step_key: string | null;
}

export interface StepError {
  code: string;
  message: string;
}

/** Step outputs as later steps see them (already redacted; secrets never enter history). */
export type StepsContext = ExpressionContext['steps'];

export interface ExecuteStepInput {
  runId: string;
  workspaceId: string;
  step: StepDefinition;
}

/** A step's outcome as the workflow sees it: its output stays in PostgreSQL. */
export type ExecuteStepResult = { status: 'skipped' } | { status: 'succeeded'; jumpTo?: string } | { status: 'failed'; error: StepError };

export interface BeginStepResult {
  skipped: boolean;
}

export interface FinishStepInput {
  runId: string;
  stepKey: string;
  status: StepStatus;
  output?: unknown;
  error?: StepError | null;
}

export interface SkipStepsInput {
  runId: string;
  stepKeys: string[];
  status: 'skipped' | 'cancelled';
}

export interface CompleteRunInput {
  runId: string;
  workspaceId: string;
  status: TerminalRunStatus;
  /** Run output expression; when absent the output of `lastStepKey` is used. */
  outputExpression?: string;
  /** The last step that succeeded, if any. */
  lastStepKey: string | null;
  error?: RunError;
}

export interface OpenReviewInput extends ExecuteStepInput {
  reviewId: string;
}

export interface OpenReviewResult {
  skipped: boolean;
}

export interface ResolveReviewInput {
  runId: string;
  reviewId: string;
  status: 'approved' | 'rejected' | 'expired';
  decision: 'approved' | 'rejected';
  decidedBy: string | null;
  comment: string | null;
}

/** The review step's output: the decision. */
export interface ReviewOutcome {
  decision: 'approved' | 'rejected';
  decided_by: string | null;
  decided_at: string;
  comment: string | null;
}

export interface CancelRunInput {
  runId: string;
}
