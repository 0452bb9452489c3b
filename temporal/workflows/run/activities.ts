import { ActivityCancellationType, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { StepDefinition } from '@svc/domain';
import type { RunActivities } from '../../activities';
import { HTTP_HEARTBEAT_TIMEOUT_MS, STEP_FAILED_PERMANENTLY } from '../../shared/runTypes';

/**
 * Bookkeeping: short idempotent writes, run as local activities inside the workflow task (no
 * round trip through the server). Retried until the database is back; past a few seconds the
 * backoff becomes a durable timer, so an outage delays a run but never loses its state.
 */
const BOOKKEEPING: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  localRetryThreshold: '5s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
};
export const bookkeeping = proxyLocalActivities<RunActivities>(BOOKKEEPING);

/** Bookkeeping for one step, with the step named in the Temporal UI. */
export function stepBookkeeping(step: StepDefinition): RunActivities {
  return proxyLocalActivities<RunActivities>({ ...BOOKKEEPING, summary: stepSummary(step) });
}

/** How a step reads in the Temporal UI: its key and type. */
export function stepSummary(step: StepDefinition): string {
  return `step ${step.key} (${step.type})`;
}

// Mail is best effort with a bound: a broken mail server must not keep a run from settling.
export const notices = proxyActivities<RunActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 12 },
});

// The step activity settles a step's own failures itself (it returns `failed` once the step's
// attempts are used up), so Temporal's bound only meets attempts lost to the platform — a
// worker killed or the Temporal server restarted mid-attempt: those are retried, so a step
// never fails for them (they do show in its attempt count).
const PLATFORM_RETRY_ALLOWANCE = 10;

function retryOf(step: StepDefinition): ActivityOptions['retry'] {
  return {
    maximumAttempts: step.retry.max_attempts + PLATFORM_RETRY_ALLOWANCE,
    initialInterval: step.retry.interval_ms,
    backoffCoefficient: step.retry.backoff === 'exponential' ? 2 : 1,
    maximumInterval: Math.max(step.retry.interval_ms, 60_000),
    nonRetryableErrorTypes: [STEP_FAILED_PERMANENTLY],
  };
}

/**
 * The activity that runs a step: an http step is a regular activity (it may take long, and
 * its retries are scheduled by the server); transform and condition steps are local
 * activities, computed inside the workflow task.
 */
export function stepActivities(step: StepDefinition): Pick<RunActivities, 'executeStep'> {
  const summary = stepSummary(step);
  if (step.type === 'http') {
    return proxyActivities<RunActivities>({
      summary,
      startToCloseTimeout: step.timeout_ms + 10_000,
      // The activity heartbeats while its request runs, so a cancellation reaches it within
      // seconds (and aborts the request), and a lost worker is noticed as fast.
      heartbeatTimeout: HTTP_HEARTBEAT_TIMEOUT_MS,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: retryOf(step),
    });
  }
  return proxyLocalActivities<RunActivities>({ summary, startToCloseTimeout: '30s', localRetryThreshold: '5s', retry: retryOf(step) });
}
