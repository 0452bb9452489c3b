import type { AttemptDecision, AttemptMeasurement } from '@svc/domain';

/** Arguments of one delivery workflow (one generation of one (event, endpoint) delivery). */
export interface DeliveryWorkflowInput {
  deliveryId: string;
  /** 0, then +1 per manual retry; a workflow whose generation is outdated ends without sending. */
  generation: number;
  /** Delays between attempts (ms), before jitter: attempts = length + 1 (WEBHOOK_RETRY_SCHEDULE). */
  scheduleMs: number[];
  /** Time limit of one attempt's HTTP exchange (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
}

/** `busy`: the workspace had its bound of attempts in flight in that worker; nothing was sent or logged. */
export type AttemptOutcome =
  | { kind: 'skip'; reason: 'delivery_gone' | 'superseded' | 'not_pending' | 'endpoint_disabled' }
  | { kind: 'busy' }
  | ({ kind: 'attempted' } & AttemptMeasurement);

export interface RecordAttemptInput {
  deliveryId: string;
  generation: number;
  attemptKey: string;
  outcome: Extract<AttemptOutcome, { kind: 'attempted' }>;
  /** The next jittered delay, or null after the last attempt of the window. */
  plannedDelayMs: number | null;
  /** Total of the schedule, for the disable reason. */
  windowMs: number;
}

/** One attempt's log entry, less its outcome: what deliverAttempt is given. */
export type AttemptEntry = Omit<RecordAttemptInput, 'outcome'>;

/** An attempt with its log entry written: the log's decision, or why nothing was attempted. */
export type AttemptStep = Extract<AttemptOutcome, { kind: 'skip' | 'busy' }> | { kind: 'recorded'; decision: AttemptDecision };

/**
 * The type of deliverAttempt's failure when the request was made but its log entry could not be
 * written: its details carry the attempt's outcome, which the workflow then writes itself.
 */
export const ATTEMPT_NOT_RECORDED = 'SvcDeliveryAttemptNotRecorded';

export type DeliveryWorkflowResult = { status: 'succeeded' | 'failed' | 'superseded' | 'stopped'; reason?: string };
