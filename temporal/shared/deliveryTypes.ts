import type { AttemptMeasurement } from '@svc/domain';

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

export type AttemptOutcome =
  | { kind: 'skip'; reason: 'delivery_gone' | 'superseded' | 'not_pending' | 'endpoint_disabled' }
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

export type DeliveryWorkflowResult = { status: 'succeeded' | 'failed' | 'superseded' | 'stopped'; reason?: string };
