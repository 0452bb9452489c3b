import type { TelemetryOptions } from '@temporalio/worker';
import { STEP_DURATION_BUCKETS } from '@svc/temporal';

/**
 * One Prometheus endpoint per worker: the SDK's own metrics and svc's, which are
 * created on the same Runtime's meter (createWorkers). Durations in seconds, as Prometheus expects.
 */
export function prometheusTelemetry(bindAddress: string): TelemetryOptions {
  return {
    metrics: {
      prometheus: {
        bindAddress,
        useSecondsForDurations: true,
        histogramBucketOverrides: { svc_step_duration_seconds: STEP_DURATION_BUCKETS },
      },
    },
  };
}
