import type { WorkflowDefinition } from '../definitions';

export interface LaunchRequest {
  runId: string;
  /** The Temporal workflow id of the run's execution (runs.temporal_workflow_id). */
  temporalWorkflowId: string;
  workspaceId: string;
  workflowId: string;
  workflowVersion: number;
  definition: WorkflowDefinition;
  input: unknown;
}

/** The port through which use cases reach Temporal (implemented in temporal/client). */
export interface RunLauncher {
  /** Starts the run's workflow; starting an already started run is a no-op. */
  start(req: LaunchRequest): Promise<void>;
  /**
   * Resolves when the run settles or `timeoutMs` passes, whichever is first. Aborting
   * the signal stops the wait only; the run is never affected.
   */
  waitForSettle(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

export interface ReviewDecision {
  reviewId?: string;
  decision: 'approved' | 'rejected';
  comment?: string | null;
  decidedBy?: string | null;
}

/**
 * Messages to a run's workflow. Each answers `closed` when the workflow has already
 * finished (the caller then reads the final state), or throws the AppError the workflow's
 * validator decided on.
 */
export interface RunControl {
  cancel(runId: string): Promise<'cancelled' | 'closed'>;
  decide(runId: string, decision: ReviewDecision): Promise<'decided' | 'closed'>;
}
