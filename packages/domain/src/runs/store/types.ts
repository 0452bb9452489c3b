import type { DeliveryRef } from '../../webhooks/fanOut';
import type { SealedSecret } from '../../secrets/secrets';
import type { SlotGrant } from '../slots';

export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting_for_review' | 'cancelled';
export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';

export interface StepError {
  code: string;
  message: string;
}

export interface RunError extends StepError {
  step_key: string | null;
}

/** Step outputs as expressions see them. */
export type StepsData = Record<string, { output: unknown; status: string }>;

/** A run's data as its expressions see it (loadData), with the workspace's secrets still sealed. */
export interface RunData {
  /** The workflow version the run is pinned to. */
  workflowId: string;
  workflowVersion: number;
  input: unknown;
  steps: StepsData;
  /** What its step outputs take together, as JSON (bounded by MAX_RUN_DATA_BYTES). */
  dataBytes: number;
  secrets: SealedSecret[];
}

/** Work left for after a commit: waiting runs to tell of their slot, deliveries to start. */
export interface AfterCommit {
  granted: SlotGrant[];
  deliveries: DeliveryRef[];
}

export interface StepWrite {
  status: StepStatus;
  /** The attempt count to record (at least); 0 for a step that never ran. */
  attempts: number;
  /** When the step started, for steps written once at their end (local steps); else kept. */
  startedAt?: Date | null;
  output?: unknown;
  error?: StepError | null;
  /** The activity attempt writing: an earlier (stale) attempt never overwrites a later one's. */
  fence?: number;
  /** Whether to return the output as stored, for an expression evaluated next (finishStep). */
  readBack?: boolean;
}

export interface FinishRun {
  runId: string;
  workspaceId: string;
  status: TerminalRunStatus;
  /** The run's output, or where to take it from: the output of this step. */
  output: { value: unknown } | { fromStep: string } | null;
  error: RunError | null;
  /** Names this release of the run's slot (see slots.ts); the same on every retry. */
  grantKey: string;
}

/** Told of run-state changes once they are committed (the worker's metrics). */
export interface RunStoreObserver {
  /** A run left `queued` for its first step. */
  runStarted(): void;
  /** A step ended `succeeded` or `failed`, after this long from its start (as the API's `duration_ms`). */
  stepFinished(type: string, seconds: number): void;
  /** A run reached its final status (each ending once; a reset branch ends again). */
  runSettled(status: TerminalRunStatus): void;
}
