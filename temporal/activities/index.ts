import { createAfterCommit } from './afterCommit';
import type { AfterCommitDeps } from './afterCommit';
import { createDeliveryActivities } from './deliveryActivities';
import type { DeliveryActivityDeps } from './deliveryActivities';
import { createReconcileActivities } from './reconcileActivities';
import { createReviewActivities } from './reviewActivities';
import type { ReviewActivityDeps } from './reviewActivities';
import { createRunActivities, PUBLISHER_DISPATCH_GRACE_MS } from './runActivities';
import type { RunActivityDeps } from './runActivities';
import { createRunContexts } from './runContext';
import { createSlotActivities } from './slotActivities';
import { createRunStore } from '@svc/domain';

export type ActivityDeps = RunActivityDeps & ReviewActivityDeps & DeliveryActivityDeps & AfterCommitDeps;

/** The run workflow's activities (runs task queue), built over injected dependencies and one run store. */
export function createRunQueueActivities(deps: ActivityDeps) {
  const after = createAfterCommit(deps);
  const store = createRunStore(deps.prisma, { dispatchDelayMs: PUBLISHER_DISPATCH_GRACE_MS, observer: deps.metrics, sql: deps.sql });
  const runs = createRunContexts(deps, store);
  return {
    ...createRunActivities(deps, store, runs, after),
    ...createReviewActivities(deps, store, runs, after),
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
