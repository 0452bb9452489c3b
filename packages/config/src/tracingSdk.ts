import { trace } from '@opentelemetry/api';
import type { ProxyTracerProvider } from '@opentelemetry/api';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { IResource } from '@opentelemetry/resources';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  /** Where spans end (for spans made outside the SDK's own tracer, e.g. in Temporal's workflow sandbox). */
  spanProcessor: SpanProcessor;
  resource: IResource;
  /** `trace_id` and `span_id` of the active span, for log lines (pino's `mixin`). */
  logFields(): Record<string, string>;
  /** Flushes pending spans. */
  shutdown(): Promise<void>;
}

/**
 * The SDK as the standard variables configure it (exporter, endpoint, protocol, sampler,
 * propagators, resource), with svc's instrumentations: incoming and outgoing HTTP (an incoming
 * `traceparent` continues its trace), Express routes, PostgreSQL queries and undici requests.
 */
export function startSdk(serviceName: string, env: NodeJS.ProcessEnv): Tracing {
  // The SDK's resource reads OTEL_SERVICE_NAME, which an operator's setting must win over.
  if (!env.OTEL_SERVICE_NAME) process.env.OTEL_SERVICE_NAME = serviceName;
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would be most of the traces and tell nothing.
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? ''),
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as BasicTracerProvider;
  return {
    spanProcessor: provider.activeSpanProcessor,
    resource: provider.resource,
    logFields(): Record<string, string> {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: () => sdk.shutdown(),
  };
}
