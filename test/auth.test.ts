import { buildInfo } from '@svc/config';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { greet } from './helpers/fixtures';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

function expectProblem(r: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({
    status,
    code,
    type: expect.stringContaining(code.replace(/_/g, '-')),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(r.body.request_id).toBe(r.headers.get('request-id'));
}

describe('authentication', () => {
  it('answers 401 unauthenticated with WWW-Authenticate when the key is missing or malformed', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: 'bearer  x y' },
    ]) {
      const r = await stack.api('GET', '/api/v1/workflows', { headers });
      expectProblem(r, 401, 'unauthenticated');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('answers 401 invalid_api_key for an unknown key', async () => {
    const r = await stack.api('GET', '/api/v1/workflows', { key: 'svc_' + 'x'.repeat(43) });
    expectProblem(r, 401, 'invalid_api_key');
  });

  it('refuses a revoked key on the very next request', async () => {
    const { key, workspaceId } = await stack.tenant();
    expect((await stack.api('GET', '/api/v1/workflows', { key })).status).toBe(200);
    const row = await stack.db.prisma.apiKey.findFirstOrThrow({ where: { workspaceId } });
    const { revokeApiKey } = await import('@svc/domain');
    await revokeApiKey(stack.db.prisma, row.id);
    expectProblem(await stack.api('GET', '/api/v1/workflows', { key }), 401, 'api_key_revoked');
  });

  it('refuses an expired key', async () => {
    const { key, workspaceId } = await stack.tenant();
    await stack.db.prisma.apiKey.updateMany({ where: { workspaceId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectProblem(await stack.api('GET', '/api/v1/workflows', { key }), 401, 'api_key_expired');
  });

  it('stores only a SHA-256 hash and the last 4 characters', async () => {
    const { key, workspaceId } = await stack.tenant();
    const row = await stack.db.prisma.apiKey.findFirstOrThrow({ where: { workspaceId } });
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.keyHash).not.toContain(key.slice(4, 20));
    expect(row.last4).toBe(key.slice(-4));
  });

  it('answers 403 insufficient_scope naming the scope', async () => {
    const { key, workspaceId } = await stack.tenant({ scopes: ['runs:read'] });
    const wf = await stack.apply(workspaceId, greet);
    const r = await stack.api('GET', '/api/v1/workflows', { key });
    expectProblem(r, 403, 'insufficient_scope');
    expect(r.body.detail).toContain('workflows:read');
    const start = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'x' } } });
    expectProblem(start, 403, 'insufficient_scope');
    expect(start.body.detail).toContain('runs:write');
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(0);
  });
});

describe('browser requests', () => {
  it.each([
    ['Origin', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site with Sec-Fetch-Mode', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }],
  ])('refuses a request carrying %s, even with a valid key, and sends no CORS header', async (_name, headers) => {
    const { key } = await stack.tenant();
    const r = await stack.api('GET', '/api/v1/workflows', { key, headers });
    expectProblem(r, 403, 'browser_requests_not_allowed');
    expect([...r.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('accepts a lone Sec-Fetch-Mode (what Node’s global fetch sends from a server)', async () => {
    const { key } = await stack.tenant();
    const r = await stack.api('GET', '/api/v1/workflows', { key, headers: { 'sec-fetch-mode': 'cors' } });
    expect(r.status).toBe(200);
  });

  it('serves a client on Node’s global fetch, black-box', async () => {
    const { key } = await stack.tenant();
    const r = await fetch(`${stack.url}/api/v1/workflows`, { headers: { Authorization: `Bearer ${key}` } });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ data: [] });
  });

  it('refuses every OPTIONS preflight', async () => {
    const r = await stack.api('OPTIONS', '/api/v1/workflows', { headers: { 'access-control-request-method': 'POST' } });
    expectProblem(r, 403, 'browser_requests_not_allowed');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('conventions', () => {
  it('puts a Request-Id on every response, successful or not', async () => {
    const { key } = await stack.tenant();
    const ok = await stack.api('GET', '/api/v1/workflows', { key });
    expect(ok.headers.get('request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    const notFound = await stack.api('GET', '/api/v1/nope', { key });
    expectProblem(notFound, 404, 'not_found');
    expect((await stack.api('GET', '/healthz')).headers.get('request-id')).toMatch(/^req_/);
  });

  it('serves the OpenAPI document without a key', async () => {
    const r = await stack.api('GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/api/v1/workflows/{workflow_id}/runs', '/api/v1/runs/{run_id}']));
  });

  it('reports liveness and readiness', async () => {
    expect((await stack.api('GET', '/healthz')).body).toEqual({ status: 'ok', version: buildInfo().version, commit: buildInfo().commit });
    const ready = await stack.api('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });
});
