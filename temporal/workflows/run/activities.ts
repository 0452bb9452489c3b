import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { StepDefinition } from '@svc/domain';
import type { RunActivities } from '../../activities';

/**
 * Bookkeeping: short idempotent writes, run as local activities inside the workflow task (no
 * round trip through the server). Retried until the database is back; past a few seconds the
 * backoff becomes a durable timer, so an outage delays a run but never loses its state.
 */
export const bookkeeping = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: '30s',
  localRetryThreshold: '5s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

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
    nonRetryableErrorTypes: ['StepFailedPermanently'],
  };
}

/**
 * The activity that runs a step: an http step is a regular activity (it may take long, and
 * its retries are scheduled by the server); transform and condition steps are local
 * activities, computed inside the workflow task.
 */
export function stepActivities(step: StepDefinition): Pick<RunActivities, 'executeStep'> {
  if (step.type === 'http') return proxyActivities<RunActivities>({ startToCloseTimeout: step.timeout_ms + 10_000, retry: retryOf(step) });
  const local: LocalActivityOptions = { startToCloseTimeout: '30s', localRetryThreshold: '5s', retry: retryOf(step) };
  return proxyLocalActivities<RunActivities>(local);
}
