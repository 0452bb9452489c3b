import type {
  DecidedVia,
  ExpressionContext,
  LaunchRequest,
  RunError,
  SlotRequest,
  StepDefinition,
  StepError,
  StepStatus,
  TerminalRunStatus,
} from '@svc/domain';

export type { RunError, SlotRequest, StepError, StepStatus, TerminalRunStatus };
export type RunStatus = 'queued' | 'running' | 'waiting_for_review' | TerminalRunStatus;

/** An http step's activity must heartbeat within this; it beats every second while its request runs. */
export const HTTP_HEARTBEAT_TIMEOUT_MS = 4_000;

/** A run has ended. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
/** Where `wait` stops: the run has ended or waits for a person. */
export const SETTLED_STATUSES: readonly RunStatus[] = [...TERMINAL_STATUSES, 'waiting_for_review'];

/**
 * The run workflow's argument: ids and the definition pinned at start, never the run's data.
 * Activities read the input and step outputs from PostgreSQL and write outputs there, so a
 * run's history does not grow with its data.
 */
export type RunWorkflowInput = Omit<LaunchRequest, 'input'> & {
  /** Set when a run that waited long for a slot after a review continued as new. */
  resume?: { nextStep: number; lastStepKey: string | null; decidedReviews: string[] };
};

/** What a launch hands Temporal: the launch without its input. */
export function runWorkflowInput(req: LaunchRequest): RunWorkflowInput {
  const { input: _input, ...ids } = req;
  return ids;
}

/** Step outputs as later steps see them (already redacted; secrets never enter history). */
export type StepsContext = ExpressionContext['steps'];

export interface ExecuteStepInput {
  runId: string;
  workspaceId: string;
  step: StepDefinition;
  /** Set for the run's last step when it runs locally: the activity also ends the run. */
  finishRun?: Pick<FinishRunInput, 'grantKey' | 'outputExpression' | 'lastStepKey'>;
  /** Set for a run's first step when it runs locally: the activity first asks for the run's slot. */
  claim?: SlotRequest;
}

/**
 * A step's outcome as the workflow sees it: its output stays in PostgreSQL. `run` is the run's
 * final status when the activity also ended the run.
 */
export type ExecuteStepResult = (
  | { status: 'skipped' }
  | { status: 'succeeded'; jumpTo?: string }
  | { status: 'failed'; error: StepError }
  /** Asked for a slot (`claim`) and none was free: the step did not run. */
  | { status: 'queued' }
) & {
  run?: { status: TerminalRunStatus };
};

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

export interface FinishRunInput extends SlotRequest {
  status: TerminalRunStatus;
  /** Run output expression; when absent the output of `lastStepKey` is used. */
  outputExpression?: string;
  /** The last step that succeeded, if any. */
  lastStepKey: string | null;
  error?: RunError;
}

export interface OpenReviewInput extends ExecuteStepInput {
  reviewId: string;
  grantKey: string;
}

export interface OpenReviewResult {
  skipped: boolean;
}

export interface ResolveReviewInput {
  runId: string;
  workspaceId: string;
  reviewId: string;
  status: 'approved' | 'rejected' | 'expired';
  decision: 'approved' | 'rejected';
  decidedBy: string | null;
  /** Null for an expiry (the store records the timer) and for decisions from older histories. */
  decidedVia?: DecidedVia | null;
  comment: string | null;
}

/** The review step's output: the decision. */
export interface ReviewOutcome {
  decision: 'approved' | 'rejected';
  decided_by: string | null;
  decided_at: string;
  comment: string | null;
}

/**
 * The failure type of an activity that fails its step for good (no retry); its details carry
 * `{code}`, the step error's stable code.
 */
export const STEP_FAILED_PERMANENTLY = 'StepFailedPermanently';

/** The failure type of an activity retried because the expression sandbox had no room in time. */
export const SANDBOX_BUSY = 'SandboxBusy';

/** The step error code a permanent failure carries, or `step_failed`. */
export function permanentFailureCode(details: readonly unknown[] | null | undefined): string {
  const code = (details?.[0] as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'step_failed';
}

/** The run workflow's type (temporal/workflows/runWorkflow.ts). */
export const RUN_WORKFLOW_TYPE = 'runWorkflow';
