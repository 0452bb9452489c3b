import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/deliveryActivities';
import { ATTEMPT_NOT_RECORDED } from '../shared/deliveryTypes';
import type { AttemptEntry, AttemptStep, DeliveryWorkflowInput, DeliveryWorkflowResult, RecordAttemptInput } from '../shared/deliveryTypes';

// Writes to the delivery log: short, idempotent, retried until the database is back; past a few
// seconds of retries (a database outage) the backoff becomes a durable timer.
const log = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30s',
  localRetryThreshold: '5s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

// Mail to administrators: retried for a while (SMTP outages), then given up on.
const mail = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 12 },
});

/**
 * The first wait after the workspace's attempts were at their bound in the worker; it doubles up
 * to BUSY_MAX_MS, so a large backlog of one workspace asks again rarely rather than often.
 */
const BUSY_FIRST_MS = 2_000;
const BUSY_MAX_MS = 30_000;

/** ±10 %: spreads the retries of many deliveries that failed together. Math.random is deterministic here. */
function jitter(ms: number): number {
  return Math.max(0, Math.round(ms * (0.9 + Math.random() * 0.2)));
}

/** The attempt's outcome carried by a failure of deliverAttempt whose log entry could not be written. */
function unrecordedOutcome(err: unknown): RecordAttemptInput['outcome'] | undefined {
  const failure = err instanceof ActivityFailure ? err.cause : err;
  if (failure instanceof ApplicationFailure && failure.type === ATTEMPT_NOT_RECORDED)
    return failure.details?.[0] as RecordAttemptInput['outcome'];
  return undefined;
}

/**
 * One (event, endpoint) delivery generation: attempt, then sleep on the jittered schedule and
 * attempt again, for about 24 h (WEBHOOK_RETRY_SCHEDULE), until a 2xx. Each attempt runs without
 * Temporal retries (the schedule is this loop's); every attempt, including one whose worker died,
 * is written to the delivery log, which also decides what follows.
 *
 * An attempt is one local activity that POSTs and writes the attempt to the log. Only when that
 * activity fails (its worker died, it timed out, or the log could not be written) does the
 * workflow write the attempt itself, retrying until the database is back. A worker that dies
 * mid-attempt loses the task, and the retried task attempts again: receivers dedupe on the event id.
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  const { deliveryId, generation, scheduleMs } = input;
  const { deliverAttempt } = proxyLocalActivities<DeliveryActivities>({
    startToCloseTimeout: input.attemptTimeoutMs + 15_000,
    retry: { maximumAttempts: 1 },
  });
  const windowMs = scheduleMs.reduce((a, b) => a + b, 0);
  const workflowId = workflowInfo().workflowId;

  /** One attempt and its log entry: the log's decision, or why nothing was attempted. */
  async function attempt(entry: AttemptEntry): Promise<AttemptStep> {
    const startedAt = Date.now();
    try {
      return await deliverAttempt(entry);
    } catch (err) {
      // The attempt's worker died or the activity timed out: whether the receiver got it is
      // unknown. It counts as a failed attempt (receivers dedupe on the event id anyway). An
      // attempt made whose log entry could not be written carries its own outcome.
      const outcome: RecordAttemptInput['outcome'] = unrecordedOutcome(err) ?? {
        kind: 'attempted',
        startedAt: new Date(startedAt).toISOString(),
        durationMs: Date.now() - startedAt,
        responseStatus: 0,
        responseBodyExcerpt: '',
        error: 'internal',
        retryAfterMs: null,
      };
      return { kind: 'recorded', decision: await log.recordDeliveryAttempt({ ...entry, outcome }) };
    }
  }

  let busyWaitMs = BUSY_FIRST_MS;
  for (let i = 0; i <= scheduleMs.length; i++) {
    const plannedDelayMs = i < scheduleMs.length ? jitter(scheduleMs[i]) : null;
    const step = await attempt({ deliveryId, generation, attemptKey: `${workflowId}:${i}`, plannedDelayMs, windowMs });
    if (step.kind === 'busy') {
      // Nothing was sent or logged: the same attempt, once the workspace has room in a worker.
      await sleep(jitter(busyWaitMs));
      busyWaitMs = Math.min(busyWaitMs * 2, BUSY_MAX_MS);
      i--;
      continue;
    }
    busyWaitMs = BUSY_FIRST_MS;
    if (step.kind === 'skip') {
      if (step.reason === 'endpoint_disabled') await log.stopDelivery({ deliveryId, generation });
      return { status: step.reason === 'superseded' ? 'superseded' : 'stopped', reason: step.reason };
    }
    const { decision } = step;
    if (decision.next === 'retry') {
      await sleep(Math.max(1, decision.delayMs));
      continue;
    }
    if (decision.endpointDisabled && decision.endpointId) {
      try {
        await mail.notifyEndpointDisabled({ endpointId: decision.endpointId });
      } catch {
        // Mail could not be sent for hours: the endpoint stays disabled with its reason (the
        // API shows it); the delivery's own outcome is already recorded.
      }
    }
    return { status: decision.status };
  }
  return { status: 'failed' };
}
