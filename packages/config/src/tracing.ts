import type { Tracing } from './tracingSdk';

export type { Tracing } from './tracingSdk';

/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint (or an explicit
 * `OTEL_TRACES_EXPORTER` other than `none`), and `OTEL_SDK_DISABLED` not `true`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces, else returns undefined
 * having loaded nothing of it. Call it before anything else is required: its instrumentations
 * patch http, express, pg and undici as they load.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (!tracingRequested(env)) return undefined;
  // Loaded only here, so a process without traces pays nothing for them.
  const sdk = require('./tracingSdk') as typeof import('./tracingSdk');
  return sdk.startSdk(serviceName, env);
}
