import type { Tracing } from '@svc/config';
import type { WorkerOptions } from '@temporalio/worker';

/** The workflow interceptors module the traced workflow bundle carries (scripts/bundle-workflows.js names it too). */
export const TRACED_WORKFLOW_INTERCEPTORS = '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

export interface WorkerTracing {
  interceptors: NonNullable<WorkerOptions['interceptors']>;
  sinks: NonNullable<WorkerOptions['sinks']>;
}

/**
 * What a Worker needs to trace: activity interceptors (each activity a span, child of its
 * workflow's), and the sink that the traced bundle's workflow interceptors hand their spans to
 * (workflow code cannot export; the sink does it outside the sandbox). Loaded only when traces are on.
 */
export function workerTracing(tracing: Tracing): WorkerTracing {
  const otel =
    require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof import('@temporalio/interceptors-opentelemetry/lib/worker');
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      exporter: otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource as Parameters<typeof otel.makeWorkflowExporter>[1]),
    },
  };
}
