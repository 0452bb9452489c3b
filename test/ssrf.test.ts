import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startEchoServer } from './helpers/echoServer';

let stack: TestStack;
let echo: Awaited<ReturnType<typeof startEchoServer>>;

beforeAll(async () => {
  // No operator allowlist: loopback is refused like every private range. Only loopback
  // targets are used here so a broken guard could never send traffic off this machine;
  // the other ranges are covered by the address-policy unit tests.
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '' });
  echo = await startEchoServer((_req, res) => res.end('reached'));
});
afterAll(async () => {
  await echo.close();
  await stack.stop();
});

it.each([
  ['a loopback literal', () => `${echo.url}/x`],
  ['a hostname resolving to loopback', () => `http://localhost:${echo.port}/x`],
  ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${echo.port}/`],
])('refuses an http step aimed at %s, at connect time, without retrying', async (_name, url) => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'SSRF',
    slug: 'ssrf',
    steps: [{ key: 'call', type: 'http', url: url(), retry: { max_attempts: 3, interval: '100ms' } }],
  });
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
  expect(r.body.status).toBe('failed');
  expect(r.body.error).toMatchObject({ code: 'http_blocked_address', step_key: 'call' });
  expect(r.body.steps[0].attempts).toBe(1);
  expect(echo.requests).toHaveLength(0);
});

it('keeps a raw(…) url template, the opt-in for a whole trusted URL, under the same guard', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Raw',
    slug: 'raw-url',
    steps: [{ key: 'call', type: 'http', url: '{{ raw(input.target) }}' }],
  });
  for (const target of [`${echo.url}/x`, `http://localhost:${echo.port}/x`]) {
    const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { target }, wait: true } });
    expect(r.body.status).toBe('failed');
    expect(r.body.error).toMatchObject({ code: 'http_blocked_address', step_key: 'call' });
  }
  expect(echo.requests).toHaveLength(0);
});

it('names the refused host in the step error, never the address it resolved to', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Internal name',
    slug: 'internal-name',
    steps: [{ key: 'call', type: 'http', url: `http://localhost:${echo.port}/x` }],
  });
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
  expect(r.body.error).toMatchObject({ code: 'http_blocked_address', step_key: 'call' });
  const stored = await stack.db.prisma.runStep.findFirstOrThrow({ where: { runId: r.body.id, key: 'call' } });
  const texts = [JSON.stringify(stored.error), JSON.stringify(r.body.error), JSON.stringify(r.body.steps[0].error)];
  for (const text of texts) {
    expect(text).toContain('localhost');
    for (const address of ['127.0.0.1', '::1', '127.']) expect(text).not.toContain(address);
  }
  expect(echo.requests).toHaveLength(0);
});
