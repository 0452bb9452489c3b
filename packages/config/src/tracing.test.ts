import { startTracing, tracingRequested } from './tracing';

describe('tracingRequested', () => {
  it('follows the standard OTEL_* variables', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });
});

describe('startTracing', () => {
  it('loads nothing of the SDK when traces are not asked for', () => {
    expect(startTracing('svc-test', {})).toBeUndefined();
    const loaded = Object.keys(require.cache).filter((p) => p.includes('@opentelemetry'));
    expect(loaded).toEqual([]);
  });
});
