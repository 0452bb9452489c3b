import { createAfterCommit } from './afterCommit';
import type { AfterCommitDeps } from './afterCommit';
import { createDeliveryActivities } from './deliveryActivities';
import type { DeliveryActivityDeps } from './deliveryActivities';
import { createReconcileActivities } from './reconcileActivities';
import { createRunActivities, PUBLISHER_DISPATCH_GRACE_MS } from './runActivities';
import type { RunActivityDeps } from './runActivities';
import { createSlotActivities } from './slotActivities';

export type ActivityDeps = RunActivityDeps & DeliveryActivityDeps & AfterCommitDeps;

/** The run workflow's activities (runs task queue), built over injected dependencies. */
export function createRunQueueActivities(deps: ActivityDeps) {
  const after = createAfterCommit(deps);
  return {
    ...createRunActivities(deps, after),
    ...createSlotActivities(deps, after),
    ...createReconcileActivities(deps, after, PUBLISHER_DISPATCH_GRACE_MS),
  };
}

/** The delivery workflow's activities (deliveries task queue). */
export function createDeliveryQueueActivities(deps: DeliveryActivityDeps) {
  return createDeliveryActivities(deps);
}

/** Every activity, for a worker that serves both queues' workflows. */
export function createActivities(deps: ActivityDeps) {
  return { ...createRunQueueActivities(deps), ...createDeliveryQueueActivities(deps) };
}

export type RunActivities = ReturnType<typeof createRunQueueActivities>;
