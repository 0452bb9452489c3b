import { patched } from '@temporalio/workflow';

/**
 * The run engine's changes, as patches. For every `patched()` a new execution takes, Temporal's
 * core records a marker AND upserts the TemporalChangeVersion search attribute (a visibility
 * write on the server), so a new execution takes one patch, ENGINE_PATCH, standing for every
 * change made before it. Executions that began earlier replay each change's own patch, as they
 * recorded it. A later change adds its own patch, checked with `has`; to keep new runs at one
 * marker, ENGINE_PATCH is then renamed to stand for it too, and the checks of `current` become
 * `has('svc-engine-2026-11')`.
 */
export const ENGINE_PATCH = 'svc-engine-2026-11';

export interface EngineChanges {
  /** This execution began on this engine: every change up to ENGINE_PATCH applies. */
  readonly current: boolean;
  /** Whether an older change (named by its own patch) applies to this execution. */
  has(change: string): boolean;
}

/** Called once, first thing, by every run execution: the marker's place in its history. */
export function engineChanges(): EngineChanges {
  const current = patched(ENGINE_PATCH);
  return { current, has: (change) => current || patched(change) };
}
