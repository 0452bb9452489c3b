import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findFreePort } from '@svc/devstack';
import { json, startEchoServer } from './helpers/echoServer';
import { waitFor } from './helpers/fixtures';
import { apiCall } from './helpers/http';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Traces end to end, configured only by the standard OTEL_* variables: a gateway and a worker
 * process export to a test OTLP/HTTP receiver (JSON), and one trace runs from `POST …/runs`
 * through the run's workflow and activity to the http step's request, whose receiver sees the
 * same trace in its `traceparent`.
 */

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
const spans: { service: string; span: OtlpSpan }[] = [];
let otlp: Server;
let stack: TestStack;
const apps: Spawned[] = [];
let gatewayUrl: string;

/** Collects every span posted to /v1/traces (OTLP/HTTP with JSON bodies). */
function startOtlpReceiver(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const doc = JSON.parse(body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of doc.resourceSpans ?? []) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ service, span });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  stack = await startStack();
  await stack.stopWorker();
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_ALLOW_HTTP: 'true',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  };
  const port = await findFreePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  apps.push(await spawnApp('worker', { ...otel, WORKER_METRICS_ADDRESS: `127.0.0.1:${await findFreePort(undefined, { avoid: [port] })}` }));
  apps.push(await spawnApp('gateway', { ...otel, PORT: String(port), BASE_URL: gatewayUrl }));
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await stack?.startWorker();
  await stack?.stop();
  await new Promise((resolve) => otlp?.close(resolve));
});

it('one trace runs from POST /runs through the workflow to the http step, whose receiver sees it', async () => {
  const receiver = await startEchoServer((_req, res) => json(res, 200, { ok: true }));
  try {
    const { key, workspaceId } = await stack.tenant();
    const wf = await stack.apply(workspaceId, {
      name: 'Calls out',
      slug: 'calls-out',
      steps: [{ key: 'call', type: 'http', method: 'POST', url: receiver.url, body: { a: 1 } }],
    });
    // The caller's own trace: svc continues it.
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const run = await apiCall(gatewayUrl, 'POST', `/api/v1/workflows/${wf.id}/runs`, {
      key,
      body: { input: {}, wait: true },
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe('succeeded');

    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0].headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

    /** Spans whose parent is neither the caller's span nor one of this trace's (not exported yet, or lost). */
    const orphans = (ss: typeof spans) => {
      const ids = new Set(ss.map((s) => s.span.spanId));
      return ss.filter((s) => s.span.parentSpanId && s.span.parentSpanId !== '00f067aa0ba902b7' && !ids.has(s.span.parentSpanId));
    };
    const inTrace = await waitFor(
      async () => spans.filter((s) => s.span.traceId === traceId),
      (ss) => ss.some((s) => s.service === 'svc-worker' && /^RunActivity:executeStep/.test(s.span.name)) && orphans(ss).length === 0,
      20_000,
      200,
    ).catch(() => spans.filter((s) => s.span.traceId === traceId));
    const names = (service: string) => inTrace.filter((s) => s.service === service).map((s) => s.span.name);
    expect(names('svc-gateway')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^POST/), expect.stringMatching(/^StartWorkflow:|^UpdateWithStart/)]),
    );
    expect(names('svc-worker')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^RunWorkflow:/), expect.stringMatching(/^RunActivity:executeStep/)]),
    );
    // The http step's request is a span of the activity's, and its traceparent names it.
    const requestSpanId = receiver.requests[0].headers.traceparent!.toString().split('-')[2];
    const requestSpan = inTrace.find((s) => s.span.spanId === requestSpanId);
    expect(requestSpan?.service).toBe('svc-worker');
    // Every span but the caller's own has its parent in this trace: one tree.
    expect(orphans(inTrace).map((s) => `${s.service} ${s.span.name}`)).toEqual([]);

    // The gateway's access log line carries the trace.
    const gateway = apps[1].output();
    const line = gateway.split('\n').find((l) => l.includes('"request completed"') && l.includes(`"trace_id":"${traceId}"`));
    expect(line).toBeDefined();
  } finally {
    await receiver.close();
  }
});
