import { createDeliveryActivities } from './deliveryActivities';
import type { DeliveryActivityDeps } from './deliveryActivities';
import { createEventActivities } from './eventActivities';
import { createRunActivities } from './runActivities';
import type { RunActivityDeps } from './runActivities';
import { createSlotActivities } from './slotActivities';
import type { SlotActivityDeps } from './slotActivities';

export type ActivityDeps = RunActivityDeps & DeliveryActivityDeps & SlotActivityDeps;

/** Every activity the worker registers, built over injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRunActivities(deps),
    ...createEventActivities(deps),
    ...createDeliveryActivities(deps),
    ...createSlotActivities(deps),
  };
}

export type RunActivities = ReturnType<typeof createActivities>;
