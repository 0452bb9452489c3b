import { buildInfo } from '@svc/config';
import { findFreePort } from '@svc/devstack';
import { waitFor } from './helpers/fixtures';
import { apiCall } from './helpers/http';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * The gateway as a process (apps/gateway/dist/main.js): an access log line per response, the
 * build in /healthz and svc_build_info, and a graceful stop that drains before it closes.
 */

let stack: TestStack;
let gateway: Spawned;
let url: string;

beforeAll(async () => {
  stack = await startStack();
  const port = await findFreePort();
  url = `http://127.0.0.1:${port}`;
  gateway = await spawnApp('gateway', {
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    PORT: String(port),
    BASE_URL: url,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    GATEWAY_DRAIN_MS: '1500',
    SVC_GIT_COMMIT: 'abc1234def',
  });
});
afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await stack?.stop();
});

/** The gateway's JSON log lines so far. */
const logLines = () =>
  gateway
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it('logs one line per response, whatever its status, with its Request-Id, route, status and duration; never a credential', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, { name: 'Echo', slug: 'echo', steps: [{ key: 's', type: 'transform', expression: 'input' }] });
  const ok = await apiCall(url, 'POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { a: 1 } } });
  const missing = await apiCall(url, 'GET', '/api/v1/runs/run_000000000000000000000000?token=secret-in-query', { key });
  const refused = await apiCall(url, 'GET', '/api/v1/workflows', { key: 'svc_wrong_key_000000000000' });
  expect([ok.status, missing.status, refused.status]).toEqual([201, 404, 401]);
  const lines = await waitFor(
    async () => logLines().filter((l) => l.msg === 'request completed'),
    (ls) => ls.length >= 3,
    10_000,
  );
  const byId = (r: { headers: Headers }) => lines.find((l) => l.requestId === r.headers.get('request-id'));
  expect(byId(ok)).toMatchObject({ level: 30, status: 201, route: '/api/v1/workflows/:workflow_id/runs', req: { method: 'POST' } });
  expect(byId(missing)).toMatchObject({
    status: 404,
    // Answered by the error handler, outside the API's router: the route without its mount point.
    route: expect.stringMatching(/\/runs\/:run_id$/),
    req: { path: '/api/v1/runs/run_000000000000000000000000' },
  });
  expect(byId(refused)).toMatchObject({ status: 401 });
  for (const l of [byId(ok), byId(missing), byId(refused)]) expect(typeof l?.durationMs).toBe('number');
  expect(gateway.output()).not.toContain(key);
  expect(gateway.output()).not.toContain('svc_wrong_key');
  expect(gateway.output()).not.toContain('secret-in-query');
});

it('names its build in /healthz and in svc_build_info', async () => {
  const health = await (await fetch(`${url}/healthz`)).json();
  expect(health).toEqual({ status: 'ok', version: buildInfo().version, commit: 'abc1234def' });
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toContain(`svc_build_info{version="${buildInfo().version}",commit="abc1234def"} 1`);
});

it('on SIGTERM answers /readyz with 503 while a held `wait` request finishes', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Slow',
    slug: 'slow',
    steps: [
      { key: 'pause', type: 'delay', duration: '3s' },
      { key: 'done', type: 'transform', expression: "'done'" },
    ],
  });
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  const held = apiCall(url, 'POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
  // The request is held once its run is running.
  await waitFor(
    () => stack.db.prisma.run.count({ where: { workflowId: wf.id, status: 'running' } }),
    (n) => n === 1,
  );
  gateway.child.kill('SIGTERM');
  const draining = await waitFor(
    () =>
      fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      ),
    (s) => s === 503,
    5_000,
    50,
  );
  expect(draining).toBe(503);
  const answer = await held;
  expect(answer.status).toBe(201);
  expect(answer.body).toMatchObject({ status: 'succeeded', output: 'done' });
  expect(await gateway.stop()).toBe(0);
});
