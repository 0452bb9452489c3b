import {
  ActivityFailure,
  ApplicationFailure,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/deliveryActivities';
import { ATTEMPT_NOT_RECORDED } from '../shared/deliveryTypes';
import type {
  AttemptEntry,
  AttemptOutcome,
  AttemptStep,
  DeliveryWorkflowInput,
  DeliveryWorkflowResult,
  RecordAttemptInput,
} from '../shared/deliveryTypes';

// Writes to the delivery log: short, idempotent, retried until the database is back.
const BOOKKEEPING = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
} as const;
const bookkeeping = proxyActivities<DeliveryActivities>(BOOKKEEPING);
// The same as local activities, inside the workflow task; past a few seconds of retries
// (a database outage) the backoff becomes a durable timer.
const localBookkeeping = proxyLocalActivities<DeliveryActivities>({ ...BOOKKEEPING, localRetryThreshold: '5s' });

// Mail to administrators: retried for a while (SMTP outages), then given up on.
const mail = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 12 },
});

/** ±10 %: spreads the retries of many deliveries that failed together. Math.random is deterministic here. */
function jitter(ms: number): number {
  return Math.max(0, Math.round(ms * (0.9 + Math.random() * 0.2)));
}

/**
 * One (event, endpoint) delivery generation: attempt, then sleep on the jittered schedule and
 * attempt again, for about 24 h (WEBHOOK_RETRY_SCHEDULE), until a 2xx. Each attempt runs without
 * Temporal retries (the schedule is this loop's); every attempt, including one whose worker died,
 * is written to the delivery log, which also decides what follows.
 *
 * Lean: an attempt is one local activity that POSTs and writes the attempt to the log, so it is
 * one workflow task, one local activity and no activity task. Only when that activity fails (its
 * worker died, it timed out, or the log could not be written) does the workflow write the
 * attempt itself, retrying until the database is back. A worker that dies mid-attempt loses the
 * task, and the retried task attempts again: receivers dedupe on the event id. It takes no
 * patch: a patch's marker and its TemporalChangeVersion upsert (a visibility write) cost every
 * delivery. Not `async`, as the other entry points: an async wrapper makes two more promises,
 * and the SDK records a stack for each.
 */
export function deliveryWorkflowV3(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  return deliver(input, 'one local activity');
}

/** Deliveries begun before deliveryWorkflowV3: the attempt and its log entry, two local activities. */
export function deliveryWorkflowV2(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  return deliver(input, 'two local activities');
}

/**
 * Deliveries begun before deliveryWorkflowV2: the same loop, the attempt local or a regular
 * activity as each history recorded it (`svc-local-delivery-attempt`).
 */
export function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  return deliver(input, patched('svc-local-delivery-attempt') ? 'two local activities' : 'two activities');
}

/** How an attempt and its log entry are run: each workflow type's as its histories recorded it. */
type AttemptShape = 'one local activity' | 'two local activities' | 'two activities';

/** The attempt's outcome carried by a failure of deliverAttempt whose log entry could not be written. */
function unrecordedOutcome(err: unknown): RecordAttemptInput['outcome'] | undefined {
  const failure = err instanceof ActivityFailure ? err.cause : err;
  if (failure instanceof ApplicationFailure && failure.type === ATTEMPT_NOT_RECORDED)
    return failure.details?.[0] as RecordAttemptInput['outcome'];
  return undefined;
}

async function deliver(input: DeliveryWorkflowInput, shape: AttemptShape): Promise<DeliveryWorkflowResult> {
  const { deliveryId, generation, scheduleMs } = input;
  const attemptOptions = { startToCloseTimeout: input.attemptTimeoutMs + 15_000, retry: { maximumAttempts: 1 } };
  const local = shape !== 'two activities';
  const { attemptDelivery, deliverAttempt } = local
    ? proxyLocalActivities<DeliveryActivities>(attemptOptions)
    : proxyActivities<DeliveryActivities>(attemptOptions);
  const log = local ? localBookkeeping : bookkeeping;
  const windowMs = scheduleMs.reduce((a, b) => a + b, 0);
  const workflowId = workflowInfo().workflowId;

  /** One attempt and its log entry: the log's decision, or why nothing was attempted. */
  async function attempt(entry: AttemptEntry): Promise<AttemptStep> {
    const startedAt = Date.now();
    let outcome: AttemptOutcome;
    try {
      if (shape === 'one local activity') return await deliverAttempt(entry);
      outcome = await attemptDelivery({ deliveryId, generation });
    } catch (err) {
      // The attempt's worker died or the activity timed out: whether the receiver got it is
      // unknown. It counts as a failed attempt (receivers dedupe on the event id anyway). An
      // attempt made whose log entry could not be written carries its own outcome.
      outcome = unrecordedOutcome(err) ?? {
        kind: 'attempted',
        startedAt: new Date(startedAt).toISOString(),
        durationMs: Date.now() - startedAt,
        responseStatus: 0,
        responseBodyExcerpt: '',
        error: 'internal',
        retryAfterMs: null,
      };
    }
    if (outcome.kind === 'skip') return outcome;
    return { kind: 'recorded', decision: await log.recordDeliveryAttempt({ ...entry, outcome }) };
  }

  for (let i = 0; i <= scheduleMs.length; i++) {
    const plannedDelayMs = i < scheduleMs.length ? jitter(scheduleMs[i]) : null;
    const step = await attempt({ deliveryId, generation, attemptKey: `${workflowId}:${i}`, plannedDelayMs, windowMs });
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
