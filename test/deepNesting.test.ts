import { createSession, loadSession, newId } from '@svc/domain';
import { call } from './helpers/http';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startEchoServer } from './helpers/echoServer';
import { runToSettle } from './helpers/runs';
import type { Tenant } from './helpers/tenants';

/**
 * Deep data that never passed the gateway's 422: a receiver's answer, a
 * value an expression builds. The step fails with a stable code, the worker keeps serving,
 * and the run reads back as usual.
 */
const LEVELS = 100_000;
const deepBody = '['.repeat(LEVELS) + ']'.repeat(LEVELS);

let stack: TestStack;
let tenant: Tenant;
let key: string;
let workspaceId: string;
let receiver: Awaited<ReturnType<typeof startEchoServer>>;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  tenant = await stack.tenant();
  ({ key, workspaceId } = tenant);
  // `/deep` answers 100,000 nested arrays; `/deep-error` the same with a 500; anything else is shallow.
  receiver = await startEchoServer((req, res) => {
    const deep = req.url.startsWith('/deep');
    res.writeHead(req.url === '/deep-error' ? 500 : 200, { 'content-type': 'application/json' });
    res.end(deep ? deepBody : '{"ok":true}');
  });
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

const http = (path: string) => ({
  name: path,
  slug: `http${path.replace('/', '-')}`,
  steps: [{ key: 'fetch', type: 'http', url: `${receiver.url}${path}` }],
});

it('an http step answered with 100,000 nested levels fails step_output_too_deep; the worker serves the next run; the run reads back', async () => {
  const failed = await runToSettle(stack, tenant, http('/deep'));
  expect(failed).toMatchObject({ status: 'failed', error: { code: 'step_output_too_deep', step_key: 'fetch' } });
  expect(failed.error.message).toBe("The step's output is nested deeper than 64 levels");
  expect(failed.steps[0]).toMatchObject({ status: 'failed', attempts: 1, output: null, error: { code: 'step_output_too_deep' } });

  const read = await stack.api('GET', `/api/v1/runs/${failed.id}`, { key });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: failed.id, status: 'failed', error: { code: 'step_output_too_deep' } });
  const list = await stack.api('GET', `/api/v1/workflows/${failed.workflow_id}/runs`, { key });
  expect(list.status).toBe(200);

  const next = await runToSettle(stack, tenant, http('/shallow'));
  expect(next).toMatchObject({ status: 'succeeded', output: { status: 200, body: { ok: true } } });
});

it('an error answer nested 100,000 deep fails on its status, without keeping the body', async () => {
  const failed = await runToSettle(stack, tenant, http('/deep-error'));
  expect(failed).toMatchObject({ status: 'failed', error: { code: 'http_status', step_key: 'fetch' } });
  expect(failed.steps[0]).toMatchObject({ status: 'failed', output: null });
});

it('a transform output or a run output deeper than 64 levels fails with its own code; 64 levels pass', async () => {
  // {"a": {"a": … {}}}, `levels` deep (objects: JSONata flattens nested array constructors).
  const objects = (levels: number) => `$reduce([1..${levels - 1}], function($acc, $v){ {'a': $acc} }, {})`;
  const ok = await runToSettle(stack, tenant, {
    name: 'ok',
    slug: 'deep-ok',
    steps: [{ key: 't', type: 'transform', expression: objects(64) }],
  });
  expect(ok.status).toBe('succeeded');
  const step = await runToSettle(stack, tenant, {
    name: 'step',
    slug: 'deep-step',
    steps: [{ key: 't', type: 'transform', expression: objects(65) }],
  });
  expect(step).toMatchObject({ status: 'failed', error: { code: 'step_output_too_deep', step_key: 't' } });
  const output = await runToSettle(stack, tenant, {
    name: 'out',
    slug: 'deep-out',
    steps: [{ key: 't', type: 'transform', expression: '1' }],
    output: `{'wrap': ${objects(64)}}`,
  });
  expect(output).toMatchObject({ status: 'failed', error: { code: 'output_too_deep', step_key: null } });
  expect(output.steps[0]).toMatchObject({ status: 'succeeded', output: 1 });
  // Past the 200 levels an expression result may have, the sandbox refuses it.
  const built = await runToSettle(stack, tenant, {
    name: 'built',
    slug: 'deep-built',
    steps: [{ key: 't', type: 'transform', expression: '1' }],
    output: objects(300),
  });
  expect(built).toMatchObject({ status: 'failed', error: { code: 'expression_too_large', step_key: null } });
});

it("a console test run with input 30,000 levels deep is refused (422, the console's page), starting nothing", async () => {
  const wf = await stack.apply(workspaceId, {
    name: 'console',
    slug: 'deep-console',
    steps: [{ key: 't', type: 'transform', expression: '1' }],
  });
  const memberId = newId('mem');
  await stack.db.prisma.member.create({ data: { id: memberId, workspaceId, email: `${memberId}@example.test`, role: 'member' } });
  const session = await createSession(stack.db.prisma, memberId);
  const { csrfToken } = (await loadSession(stack.db.prisma, session))!;
  // As deep as the form's 256 KB allow once URL-encoded; far past what JSON.stringify survives.
  const levels = 30_000;
  const input = `{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;
  const r = await call(`${stack.url}/console/workflows/${wf.id}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `svc_console=${session}` },
    body: new URLSearchParams({ _csrf: csrfToken, input }).toString(),
  });
  expect(r.status).toBe(422);
  expect(String(r.body)).toContain('must not nest deeper than 64 levels');
  expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(0);
});
