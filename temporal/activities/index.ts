import { createEventActivities } from './eventActivities';
import { createRunActivities } from './runActivities';
import type { RunActivityDeps } from './runActivities';

export type ActivityDeps = RunActivityDeps;

/** Every activity the worker registers, built over injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createRunActivities(deps), ...createEventActivities(deps) };
}

export type RunActivities = ReturnType<typeof createActivities>;
