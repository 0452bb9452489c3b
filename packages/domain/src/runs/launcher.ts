import type { WorkflowDefinition } from '../definitions';

export interface LaunchRequest {
  runId: string;
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
