import type { ClientInterceptors } from '@temporalio/client';

/**
 * A client's interceptors that carry the active trace into the workflows it starts, signals and
 * updates. Loaded only when traces are on.
 */
export function clientTracingInterceptors(): ClientInterceptors {
  const otel =
    require('@temporalio/interceptors-opentelemetry/lib/client') as typeof import('@temporalio/interceptors-opentelemetry/lib/client');
  return { workflow: [new otel.OpenTelemetryWorkflowClientInterceptor()] };
}
