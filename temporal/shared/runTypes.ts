import type { ExpressionContext, LaunchRequest, StepDefinition } from '@svc/domain';

export type RunStatus = 'queued' | 'running' | 'waiting_for_review' | 'succeeded' | 'failed' | 'cancelled';
export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';
export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting_for_review' | 'cancelled';

/** A run has ended. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
/** Where `wait` stops: the run has ended or waits for a person. */
export const SETTLED_STATUSES: readonly RunStatus[] = [...TERMINAL_STATUSES, 'waiting_for_review'];

/** The run workflow's argument: exactly what a launch carries (its definition is pinned at start). */
export type RunWorkflowInput = LaunchRequest;

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
  input: unknown;
  steps: StepsContext;
}

export type ExecuteStepResult =
  | { status: 'skipped' }
  | { status: 'succeeded'; output: unknown; jumpTo?: string }
  | { status: 'failed'; error: StepError; output?: unknown };

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
  /** Run output expression; when absent the last executed step's output is used. */
  outputExpression?: string;
  lastOutput: unknown;
  input: unknown;
  steps: StepsContext;
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
