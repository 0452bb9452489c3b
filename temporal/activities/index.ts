import { createDeliveryActivities } from './deliveryActivities';
import type { DeliveryActivityDeps } from './deliveryActivities';
import { createEventActivities } from './eventActivities';
import { createRunActivities } from './runActivities';
import type { RunActivityDeps } from './runActivities';

export type ActivityDeps = RunActivityDeps & DeliveryActivityDeps;

/** Every activity the worker registers, built over injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createRunActivities(deps), ...createEventActivities(deps), ...createDeliveryActivities(deps) };
}

export type RunActivities = ReturnType<typeof createActivities>;
