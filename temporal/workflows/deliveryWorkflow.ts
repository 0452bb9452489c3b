import { patched, proxyActivities, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/deliveryActivities';
import type { AttemptOutcome, DeliveryWorkflowInput, DeliveryWorkflowResult } from '../shared/deliveryTypes';

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
 * attempt again, for about 24 h (WEBHOOK_RETRY_SCHEDULE), until a 2xx. Each attempt is an
 * activity without Temporal retries (the schedule is this loop's); every attempt, including one
 * whose worker died, is written to the delivery log, which also decides what follows.
 *
 * Lean: the attempt and its log entry are local activities, so an attempt is one workflow task
 * and no activity task (a worker that dies mid-attempt loses the task, and the retried task
 * attempts again: receivers dedupe on the event id). It takes no patch: a patch's marker and its
 * TemporalChangeVersion upsert (a visibility write) cost every delivery.
 */
export async function deliveryWorkflowV2(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  return deliver(input, true);
}

/**
 * Deliveries begun before deliveryWorkflowV2: the same loop, the attempt local or a regular
 * activity as each history recorded it (`svc-local-delivery-attempt`).
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  return deliver(input, patched('svc-local-delivery-attempt'));
}

async function deliver(input: DeliveryWorkflowInput, local: boolean): Promise<DeliveryWorkflowResult> {
  const { deliveryId, generation, scheduleMs } = input;
  const attemptOptions = { startToCloseTimeout: input.attemptTimeoutMs + 15_000, retry: { maximumAttempts: 1 } };
  const { attemptDelivery } = local
    ? proxyLocalActivities<DeliveryActivities>(attemptOptions)
    : proxyActivities<DeliveryActivities>(attemptOptions);
  const log = local ? localBookkeeping : bookkeeping;
  const windowMs = scheduleMs.reduce((a, b) => a + b, 0);
  const workflowId = workflowInfo().workflowId;

  for (let i = 0; i <= scheduleMs.length; i++) {
    const plannedDelayMs = i < scheduleMs.length ? jitter(scheduleMs[i]) : null;
    const startedAt = Date.now();
    let outcome: AttemptOutcome;
    try {
      outcome = await attemptDelivery({ deliveryId, generation });
    } catch {
      // The attempt's worker died or the activity timed out: whether the receiver got it is
      // unknown. It counts as a failed attempt (receivers dedupe on the event id anyway).
      outcome = {
        kind: 'attempted',
        startedAt: new Date(startedAt).toISOString(),
        durationMs: Date.now() - startedAt,
        responseStatus: 0,
        responseBodyExcerpt: '',
        error: 'internal',
        retryAfterMs: null,
      };
    }
    if (outcome.kind === 'skip') {
      if (outcome.reason === 'endpoint_disabled') await log.stopDelivery({ deliveryId, generation });
      return { status: outcome.reason === 'superseded' ? 'superseded' : 'stopped', reason: outcome.reason };
    }
    const decision = await log.recordDeliveryAttempt({
      deliveryId,
      generation,
      attemptKey: `${workflowId}:${i}`,
      outcome,
      plannedDelayMs,
      windowMs,
    });
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
