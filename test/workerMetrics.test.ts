import type { ServerResponse } from 'node:http';
import { buildInfo } from '@svc/config';
import { applyWorkflowAndAnnounce, validateDefinition } from '@svc/domain';
import { findFreePort } from '@svc/devstack';
import { startEchoServer } from './helpers/echoServer';
import { greet, waitFor } from './helpers/fixtures';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/** The worker's Prometheus endpoint: the SDK's own metrics and svc's, after real runs. */

const NET = { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', OUTBOUND_ALLOW_HTTP: 'true' };
let stack: TestStack;
const workers: Spawned[] = [];
beforeAll(async () => {
  stack = await startStack(NET);
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await stack.stop();
});

/** A worker process of this stack's task queues, with a metrics port of its own; returns how to scrape it. */
async function spawnWorker(env: Record<string, string> = {}) {
  const port = await findFreePort(19464);
  const worker = await spawnApp('worker', {
    ...NET,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...env,
  });
  workers.push(worker);
  return {
    worker,
    url: `http://127.0.0.1:${port}`,
    async scrape() {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      return res.text();
    },
  };
}

/** The value of one series (name with its labels as the exporter prints them), or undefined. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('worker metrics', () => {
  it('serves the SDK metrics and svc_* counters on WORKER_METRICS_ADDRESS', async () => {
    // Each run's http step blocks here until released; `/hook` receives the webhook deliveries.
    const held: ServerResponse[] = [];
    const server = await startEchoServer((req, res) => {
      if (req.url === '/hook') res.writeHead(200).end();
      else held.push(res);
    });
    try {
      const { key, workspaceId } = await stack.tenant({ limits: { concurrency: 1 } });
      const wf = await stack.apply(workspaceId, {
        name: 'Blocks',
        slug: 'blocks',
        steps: [{ key: 'call', type: 'http', method: 'GET', url: `${server.url}/block`, timeout: '60s' }],
      });
      const hook = await stack.api('POST', '/api/v1/webhook-endpoints', {
        key,
        body: { url: `${server.url}/hook`, event_types: ['run.succeeded'] },
      });
      expect(hook.status).toBe(201);

      // Only the spawned worker process serves the task queues, with its own metrics port.
      await stack.stopWorker();
      const { scrape } = await spawnWorker();

      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } });
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
      // The first run holds the one slot in its http step; the second waits in line.
      await waitFor(
        () => Promise.resolve(held.length),
        (n) => n === 1,
      );
      await waitFor(scrape, (t) => (series(t, 'svc_runs_queued') ?? 0) >= 1, 20_000);
      held.shift()!.writeHead(200).end('one');
      await waitFor(
        () => Promise.resolve(held.length),
        (n) => n === 1,
      );
      held.shift()!.writeHead(200).end('two');
      await waitFor(
        () => stack.db.prisma.run.findMany({ where: { id: { in: ids } } }),
        (runs) => runs.every((r) => r.status === 'succeeded'),
      );
      // A run whose first step is a review starts too (it never runs a step's write).
      const reviewer = await stack.tenant();
      const reviewFirst = await stack.apply(reviewer.workspaceId, {
        name: 'Ask first',
        slug: 'ask-first',
        steps: [{ key: 'ask', type: 'review', title: 'Go?', assignees: ['ops@example.test'] }],
      });
      const paused = await stack.api('POST', `/api/v1/workflows/${reviewFirst.id}/runs`, {
        key: reviewer.key,
        body: { input: {}, wait: true },
      });
      expect(paused.body.status).toBe('waiting_for_review');

      const text = await waitFor(scrape, (t) => series(t, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) === 2);
      expect(series(text, 'svc_runs_started_total')).toBe(3);
      expect(series(text, 'svc_runs_settled_total', { status: 'succeeded' })).toBe(2);
      expect(series(text, 'svc_step_duration_seconds_count', { type: 'http' })).toBe(2);
      expect(series(text, 'svc_step_duration_seconds_sum', { type: 'http' })).toBeGreaterThan(0);
      expect(series(text, 'svc_runs_queued')).toBeGreaterThanOrEqual(0);
      // Temporal's own SDK metrics, on the same endpoint.
      expect(series(text, 'temporal_workflow_task_schedule_to_start_latency_count', { task_queue: stack.taskQueue })).toBeGreaterThan(0);
      expect(series(text, 'temporal_worker_task_slots_available', { task_queue: stack.taskQueue })).toBeGreaterThan(0);
      expect(series(text, 'temporal_sticky_cache_size')).toBeGreaterThanOrEqual(0);
    } finally {
      for (const res of held) res.writeHead(200).end();
      await server.close();
    }
  });

  it('runs one queue per process with WORKER_TASK_QUEUES: runs in one, deliveries in the other, outbox events delivered too', async () => {
    await stack.stopWorker();
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const runs = await spawnWorker({ WORKER_TASK_QUEUES: 'runs' });
    const deliveries = await spawnWorker({ WORKER_TASK_QUEUES: 'deliveries' });
    const received: string[] = [];
    const server = await startEchoServer((req, res) => {
      received.push(JSON.parse(req.body).type);
      res.writeHead(200).end();
    });
    try {
      const { key, workspaceId } = await stack.tenant();
      const wf = await stack.apply(workspaceId, greet);
      const hook = await stack.api('POST', '/api/v1/webhook-endpoints', {
        key,
        body: { url: `${server.url}/hook`, event_types: ['run.succeeded', 'workflow.updated'] },
      });
      expect(hook.status).toBe(201);
      const run = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'Ada' }, wait: true } });
      expect(run.body.status).toBe('succeeded');
      // An event only the outbox relay starts a delivery for (as `svc workflows apply` raises it).
      const definition = validateDefinition({ ...greet, description: 'a new version' });
      await applyWorkflowAndAnnounce(stack.db.prisma, stack.box, { workspaceId, definition, baseUrl: stack.url });
      await waitFor(
        () => Promise.resolve([...received].sort()),
        (types) => types.join() === 'run.succeeded,workflow.updated',
      );

      // The worker counts an attempt once the receiver's answer is back, which is after the handler above saw it.
      const delivered = await waitFor(
        deliveries.scrape,
        (t) => (series(t, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) >= 2,
      );
      const ran = await runs.scrape();
      const deliveryQueue = stack.config.TEMPORAL_DELIVERY_TASK_QUEUE;
      expect(series(ran, 'svc_runs_settled_total', { status: 'succeeded' })).toBe(1);
      expect(series(ran, 'temporal_worker_task_slots_available', { task_queue: stack.taskQueue })).toBeGreaterThan(0);
      expect(series(ran, 'temporal_worker_task_slots_available', { task_queue: deliveryQueue })).toBeUndefined();
      expect(series(ran, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0).toBe(0);
      expect(series(delivered, 'svc_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(2);
      expect(series(delivered, 'temporal_worker_task_slots_available', { task_queue: deliveryQueue })).toBeGreaterThan(0);
      expect(series(delivered, 'temporal_worker_task_slots_available', { task_queue: stack.taskQueue })).toBeUndefined();
      expect(series(delivered, 'svc_runs_settled_total', { status: 'succeeded' }) ?? 0).toBe(0);
      expect(runs.worker.output()).toMatch(/"serves":\["runs"\]/);
      expect(deliveries.worker.output()).toMatch(/"serves":\["deliveries"\]/);
    } finally {
      await server.close();
    }
  });

  it('serves /healthz with its build and /readyz on the metrics listener, logs a failed run, and drains on SIGTERM', async () => {
    await stack.stopWorker();
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const { worker, url, scrape } = await spawnWorker({ SVC_GIT_COMMIT: '0123abcd' });
    const held: ServerResponse[] = [];
    let releaseAll = false;
    const server = await startEchoServer((_req, res) => (releaseAll ? res.writeHead(200).end('now') : held.push(res)));
    try {
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', version: buildInfo().version, commit: '0123abcd' });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(series(await scrape(), 'svc_build_info', { version: buildInfo().version, commit: '0123abcd' })).toBe(1);

      // A failed run: one warning line with its ids and error code.
      const { key, workspaceId } = await stack.tenant();
      const failing = await stack.apply(workspaceId, {
        name: 'Fails',
        slug: 'fails',
        steps: [{ key: 'x', type: 'transform', expression: '$error("no")' }],
      });
      const failed = await stack.api('POST', `/api/v1/workflows/${failing.id}/runs`, { key, body: { input: {}, wait: true } });
      expect(failed.body.status).toBe('failed');
      const line = await waitFor(
        async () =>
          worker
            .output()
            .split('\n')
            .find((l) => l.includes('"run failed"') && l.includes(failed.body.id)),
        (l) => l !== undefined,
        10_000,
      );
      expect(JSON.parse(line!)).toMatchObject({
        level: 40,
        msg: 'run failed',
        sdk: { runId: failed.body.id, workspaceId, code: failed.body.error.code },
      });

      // A step in flight when SIGTERM comes: not ready from then on, the step still finishes, the
      // process ends cleanly and the run goes on with the next worker.
      const blocking = await stack.apply(workspaceId, {
        name: 'Blocks',
        slug: 'blocks',
        steps: [{ key: 'call', type: 'http', method: 'GET', url: server.url, timeout: '60s' }],
      });
      const run = await stack.api('POST', `/api/v1/workflows/${blocking.id}/runs`, { key, body: { input: {} } });
      await waitFor(
        () => Promise.resolve(held.length),
        (n) => n === 1,
      );
      worker.child.kill('SIGTERM');
      await waitFor(
        () =>
          fetch(`${url}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 503,
        10_000,
        50,
      );
      releaseAll = true;
      held.shift()!.writeHead(200).end('late');
      // The step in hand finishes within the grace and is recorded before the process ends.
      await waitFor(
        () => stack.db.prisma.runStep.findFirstOrThrow({ where: { runId: run.body.id, key: 'call' }, select: { status: true } }),
        (step) => step.status === 'succeeded',
        15_000,
      );
      expect(await worker.stop()).toBe(0);
      await stack.startWorker();
      await waitFor(
        () => stack.db.prisma.run.findUniqueOrThrow({ where: { id: run.body.id } }),
        (r) => r.status === 'succeeded',
        60_000,
      );
    } finally {
      for (const res of held) res.writeHead(200).end();
      await server.close();
      await stack.startWorker();
    }
  });
});
