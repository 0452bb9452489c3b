import type { MetricMeter } from '@temporalio/common';

/** Bucket bounds of `svc_step_duration_seconds`: a transform takes milliseconds, an http step up to minutes. */
export const STEP_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120];

/**
 * svc's own worker metrics, made through the Temporal SDK's meter so the worker's
 * one Prometheus endpoint serves them beside the SDK's (a no-op meter where none is installed).
 */
export function createSvcMetrics(meter: MetricMeter) {
  const started = meter.createCounter('svc_runs_started_total', undefined, 'Runs that left the queue and began their first step');
  const settled = meter.createCounter('svc_runs_settled_total', undefined, 'Runs ended, by final status');
  const stepDuration = meter.createHistogram(
    'svc_step_duration_seconds',
    'float',
    's',
    'Steps ended succeeded or failed: time from start to end, by step type',
  );
  const queued = meter.createGauge('svc_runs_queued', 'int', undefined, 'Runs waiting in line for a concurrency slot');
  const deliveries = meter.createCounter('svc_webhook_deliveries_total', undefined, 'Webhook delivery attempts, by outcome');
  return {
    runStarted: () => started.add(1),
    runSettled: (status: string) => settled.add(1, { status }),
    stepFinished: (type: string, seconds: number) => stepDuration.record(seconds, { type }),
    setQueued: (count: number) => queued.set(count),
    /** `succeeded`, or the attempt's error class (`http_error`, `timeout`, `dns`, …). */
    deliveryAttempted: (outcome: string) => deliveries.add(1, { outcome }),
  };
}

export type SvcMetrics = ReturnType<typeof createSvcMetrics>;
