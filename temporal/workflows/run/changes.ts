import { patched } from '@temporalio/workflow';

/**
 * The run engine's changes. Executions of `runWorkflow` (begun before runWorkflowV2) made them
 * behind patches: for every `patched()` a new execution takes, Temporal's core records a marker
 * AND upserts the TemporalChangeVersion search attribute (a visibility write on the server, ~1 ms
 * of its CPU per run, measured), so those took one patch, ENGINE_PATCH, standing for every change
 * made before it, and replay each change's own patch as they recorded it.
 *
 * Executions of `runWorkflowV2` begin with every change up to now made: they take no patch at
 * all (V2_CHANGES). A later change goes behind a patch of its own, checked with `has`, and its
 * id is then true for runWorkflow executions only where they recorded it; when such patches
 * pile up, a new workflow type folds them in the same way.
 */
export const ENGINE_PATCH = 'svc-engine-2026-11';

export interface EngineChanges {
  /** This execution began on the current engine: every change up to ENGINE_PATCH applies. */
  readonly current: boolean;
  /** Whether an older change (named by its own patch) applies to this execution. */
  has(change: string): boolean;
}

/** Called once, first thing, by every `runWorkflow` execution: the marker's place in its history. */
export function engineChanges(): EngineChanges {
  const current = patched(ENGINE_PATCH);
  return { current, has: (change) => current || patched(change) };
}

/** Every change up to runWorkflowV2 applies to its executions, without a marker. */
export const V2_CHANGES: EngineChanges = { current: true, has: () => true };
