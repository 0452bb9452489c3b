import { setSecret } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startEchoServer } from './helpers/echoServer';

const TOKEN = 'tok_' + 'x'.repeat(24);
let stack: TestStack;
let legit: Awaited<ReturnType<typeof startEchoServer>>;
let evil: Awaited<ReturnType<typeof startEchoServer>>;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  legit = await startEchoServer((_req, res) => res.end('{"ok":true}'));
  evil = await startEchoServer((_req, res) => res.end('{"stolen":true}'));
});
afterAll(async () => {
  await legit.close();
  await evil.close();
  await stack.stop();
});

async function start(key: string, workflowId: string, input: unknown) {
  const r = await stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body: { input, wait: true } });
  expect(r.status).toBe(201);
  return r.body;
}

it('a forged url input never leaves the host the template names, and the secret stays home', async () => {
  const { key, workspaceId } = await stack.tenant();
  await setSecret(stack.db.prisma, stack.box, { workspaceId, name: 'X', value: TOKEN });
  // The last octet is the "tenant": unencoded, "1:<evil port>/steal?" would move the request to evil's port.
  const wf = await stack.apply(workspaceId, {
    name: 'Tenant call',
    slug: 'tenant-call',
    steps: [
      {
        key: 'call',
        type: 'http',
        url: `http://127.0.0.{{ input.tenant }}:${legit.port}/x`,
        headers: { Authorization: 'Bearer {{ secrets.X }}' },
      },
    ],
  });
  const forged = await start(key, wf.id, { tenant: `1:${evil.port}/steal?` });
  expect(forged.status).toBe('failed');
  expect(forged.error).toMatchObject({ code: 'http_invalid_url', step_key: 'call' });
  expect(evil.requests).toHaveLength(0);

  const honest = await start(key, wf.id, { tenant: '1' });
  expect(honest.status).toBe('succeeded');
  expect(legit.requests.map((r) => [r.url, r.headers.authorization])).toEqual([['/x', `Bearer ${TOKEN}`]]);
  expect(evil.requests).toHaveLength(0);
});

it('runaway expressions fail alone while 20 ordinary runs finish', async () => {
  const { key, workspaceId } = await stack.tenant();
  const apply = (slug: string, expression: string) =>
    stack.apply(workspaceId, { name: slug, slug, steps: [{ key: 't', type: 'transform', expression }] });
  const regex = await apply('regex', "$match(input.s, /(a+)+$/) ? 'matched' : 'no match'");
  const huge = await apply('huge', "$pad('', 5e8)");
  const slow = await apply('slow', "$count($map([1..99999], function($v){ $pad('', 20000) & $v }))");
  const ordinary = await apply('ordinary', "'hello ' & input.n");

  const t0 = Date.now();
  const [r, h, s, ...ok] = await Promise.all([
    start(key, regex.id, { s: 'a'.repeat(40) + '!' }),
    start(key, huge.id, {}),
    start(key, slow.id, {}),
    ...Array.from({ length: 20 }, (_, n) => start(key, ordinary.id, { n })),
  ]);
  // A backtracking engine would still be matching this one.
  expect(r).toMatchObject({ status: 'succeeded', output: 'no match' });
  expect(h).toMatchObject({ status: 'failed', error: { code: 'expression_too_large', step_key: 't' } });
  expect(s).toMatchObject({ status: 'failed', error: { code: 'expression_timeout', step_key: 't' } });
  expect(ok.map((run) => run.status)).toEqual(Array(20).fill('succeeded'));
  expect(ok.map((run) => run.output)).toEqual(Array.from({ length: 20 }, (_, n) => `hello ${n}`));
  console.log(`23 runs settled in ${Date.now() - t0} ms`);
});

it("a runaway `if` of a delay fails its step with the expression's code", async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Runaway if',
    slug: 'runaway-if',
    steps: [{ key: 'pause', type: 'delay', duration: '1s', if: "$pad('', 5e8) = ''" }],
  });
  const run = await start(key, wf.id, {});
  expect(run).toMatchObject({ status: 'failed', error: { code: 'expression_too_large', step_key: 'pause' } });
  expect(run.steps[0]).toMatchObject({ status: 'failed', error: { code: 'expression_too_large' } });
});

it('an input schema with a catastrophic pattern answers 422 promptly', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Pattern',
    slug: 'pattern',
    input_schema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
    steps: [{ key: 't', type: 'transform', expression: 'input.s' }],
  });
  const t0 = Date.now();
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { s: 'a'.repeat(40) + '!' } } });
  expect(r.status).toBe(422);
  expect(r.body.code).toBe('validation_failed');
  expect(Date.now() - t0).toBeLessThan(5_000);
});
