import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { Agent } from 'undici';
import { createApiKey, SCOPES } from '@svc/domain';
import { greet, waitFor } from './helpers/fixtures';
import { apiCall } from './helpers/http';
import type { ApiCallOptions, HttpAnswer } from './helpers/http';
import { svcCli } from './helpers/cli';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { visibilityCaughtUp } from './helpers/visibility';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await Promise.all([...agents.values()].map((a) => a.close()));
  await stack.stop();
});

// ---- helpers -------------------------------------------------------------------------------

/**
 * Requests from a chosen loopback source address (all of 127.0.0.0/8 is local on Linux), so
 * the per-address limit of one test never touches the 127.0.0.1 every other test file uses.
 */
const agents = new Map<string, Agent>();
function randomLoopback(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}
/** An API call, optionally from another loopback address (a different client IP). */
function send(base: string, method: string, p: string, opts: ApiCallOptions & { from?: string } = {}): Promise<HttpAnswer> {
  let dispatcher: Agent | undefined;
  if (opts.from) {
    dispatcher = agents.get(opts.from);
    if (!dispatcher) agents.set(opts.from, (dispatcher = new Agent({ localAddress: opts.from })));
  }
  return apiCall(base, method, p, { ...opts, dispatcher });
}

/** The real `svc` bin, as an operator runs it. */
/** The real `svc` bin, without blocking this process: it also serves the requests the test makes. */
async function svc(args: string[]) {
  const r = await svcCli([...args, '--json']);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${r.stderr}`);
  return r.json();
}

/** An enterprise workspace with a small custom figure, and `keys` keys holding every scope. */
async function enterprise(ratePerMin: number, keys = 1) {
  const t = await stack.tenant({ limits: { rateLimitPerMin: ratePerMin } });
  const all = [t.key];
  for (let i = 1; i < keys; i++)
    all.push((await createApiKey(stack.db.prisma, { workspaceId: t.workspaceId, name: `k${i}`, scopes: [...SCOPES] })).key);
  const rows = await stack.db.prisma.apiKey.findMany({ where: { workspaceId: t.workspaceId } });
  const idOf = (key: string) => rows.find((r) => r.last4 === key.slice(-4))!.id;
  return { workspaceId: t.workspaceId, keys: all, keyIds: all.map(idOf) };
}

/** The stored count of one limiter row (null when there is none). */
async function counted(rowKey: string): Promise<number | null> {
  const { rows } = await stack.db.pool.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1 AND expire > $2', [
    rowKey,
    Date.now(),
  ]);
  return rows[0]?.points ?? null;
}

function rateLimit(r: HttpAnswer): { name: string; remaining: number; reset: number } {
  const m = /^"(key|workspace|ip)";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit') ?? '');
  if (!m) throw new Error(`bad RateLimit header: ${r.headers.get('ratelimit')}`);
  return { name: m[1], remaining: Number(m[2]), reset: Number(m[3]) };
}

function expectRateLimited(r: HttpAnswer, policy: 'key' | 'workspace' | 'ip') {
  expect(r.status).toBe(429);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({
    status: 429,
    code: 'rate_limited',
    type: expect.stringContaining('rate-limited'),
    title: expect.any(String),
  });
  expect(r.body.request_id).toBe(r.headers.get('request-id'));
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const rl = rateLimit(r);
  expect(rl).toMatchObject({ name: policy, remaining: 0 });
  expect(Math.max(rl.reset, 1)).toBe(retryAfter);
}

const ok = (answers: HttpAnswer[]) => answers.filter((a) => a.status === 200).length;
const limited = (answers: HttpAnswer[]) => answers.filter((a) => a.status === 429).length;

// ---- tests ---------------------------------------------------------------------------------

describe('RateLimit headers', () => {
  it('carries the key and workspace policies on every authenticated answer, success or error', async () => {
    const { key } = await stack.tenant({ plan: 'pro' });
    const first = await stack.api('GET', '/api/v1/workflows', { key });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"key";q=600;w=60, "workspace";q=1200;w=60');
    const rl = rateLimit(first);
    expect(rl).toMatchObject({ name: 'key', remaining: 599 });
    expect(rl.reset).toBeGreaterThanOrEqual(59);
    expect(rl.reset).toBeLessThanOrEqual(60);
    expect(first.headers.get('retry-after')).toBeNull();

    const missing = await stack.api('GET', '/api/v1/runs/run_000000000000000000000000', { key });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit-policy')).toBe('"key";q=600;w=60, "workspace";q=1200;w=60');
    expect(rateLimit(missing)).toMatchObject({ name: 'key', remaining: 598 });

    const invalid = await stack.api('POST', '/api/v1/workflows/wf_000000000000000000000000/runs', {
      key,
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(invalid.status).toBeGreaterThanOrEqual(400);
    expect(rateLimit(invalid)).toMatchObject({ name: 'key', remaining: 597 });
  });

  it('carries the per-address policy on unauthenticated answers: 401, browser refusals, the OpenAPI document', async () => {
    for (const [r, status] of [
      [await stack.api('GET', '/api/v1/workflows'), 401],
      [await stack.api('GET', '/api/v1/workflows', { key: 'svc_' + 'x'.repeat(43) }), 401],
      [await stack.api('GET', '/api/v1/workflows', { headers: { origin: 'https://example.test' } }), 403],
      [await stack.api('GET', '/api/v1/openapi.json'), 200],
    ] as const) {
      expect(r.status).toBe(status);
      expect(r.headers.get('ratelimit-policy')).toBe('"ip";q=300;w=60');
      expect(rateLimit(r).name).toBe('ip');
    }
  });

  it('documents the headers on every /api/v1 answer of the OpenAPI document, and Retry-After on 429', async () => {
    const doc = (await stack.api('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.components.headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'Retry-After']));
    const startRun = doc.paths['/api/v1/workflows/{workflow_id}/runs'].post.responses;
    expect(Object.keys(startRun['201'].headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
    expect(startRun['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(doc.paths['/api/v1/openapi.json'].get.responses['429']).toBeDefined();
  });
});

describe('per key and per workspace', () => {
  it('allows exactly the figure per key per minute, then answers 429 with Retry-After and starts nothing', async () => {
    const { workspaceId, keys, keyIds } = await enterprise(5);
    const [key] = keys;
    const wf = await stack.apply(workspaceId, greet);
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await stack.api('GET', `/api/v1/workflows/${wf.id}`, { key });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-policy')).toBe('"key";q=5;w=60, "workspace";q=10;w=60');
      remaining.push(rateLimit(r).remaining);
    }
    const fifth = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'ok' } } });
    expect(fifth.status).toBe(201);
    remaining.push(rateLimit(fifth).remaining);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const sixth = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
      key,
      body: { input: { name: 'refused' } },
      headers: { 'idempotency-key': 'rl-refused' },
    });
    expectRateLimited(sixth, 'key');
    expect(sixth.headers.get('ratelimit-policy')).toBe('"key";q=5;w=60, "workspace";q=10;w=60');
    expectRateLimited(await stack.api('GET', '/api/v1/workflows', { key }), 'key');

    // No side effect: one run (the fifth request's), no idempotency record, one execution.
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(1);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId } })).toBe(0);
    const executions = async () => (await stack.temporal.workflow.count(`SvcWorkflowId = "${wf.id}"`)).count;
    await waitFor(executions, (n) => n === 1);
    await visibilityCaughtUp(stack.temporal);
    expect(await executions()).toBe(1);
    // Refused requests are not counted: the key stands at its figure, the workspace at 5.
    expect(await counted(`key:${keyIds[0]}`)).toBe(5);
    expect(await counted(`ws:${workspaceId}`)).toBe(5);
  });

  it("never counts a browser refusal against the key it carries, the key's workspace, or a key used elsewhere", async () => {
    const { workspaceId, keys, keyIds } = await enterprise(3);
    const [key] = keys;
    // A page replaying a stolen key, many times over: every request is refused before the key is looked at.
    for (const headers of [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' },
    ] as Record<string, string>[]) {
      for (let i = 0; i < 3; i++)
        expect((await stack.api('GET', '/api/v1/workflows', { key, headers })).body.code).toBe('browser_requests_not_allowed');
    }
    const preflight = await stack.api('OPTIONS', '/api/v1/workflows', { key, headers: { 'access-control-request-method': 'GET' } });
    expect(preflight.body.code).toBe('browser_requests_not_allowed');
    expect(await counted(`key:${keyIds[0]}`)).toBeNull();
    expect(await counted(`ws:${workspaceId}`)).toBeNull();
    // The server-side client (Node's fetch sends a lone Sec-Fetch-Mode) still has its whole figure.
    const served: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await stack.api('GET', '/api/v1/workflows', { key, headers: { 'sec-fetch-mode': 'cors' } });
      expect(r.status).toBe(200);
      served.push(rateLimit(r).remaining);
    }
    expect(served).toEqual([2, 1, 0]);
  });

  it('gives each key its own figure and the workspace twice that across its keys', async () => {
    const { workspaceId, keys, keyIds } = await enterprise(5, 3);
    const [a, b, c] = keys;
    for (const k of [a, b]) {
      const answers: HttpAnswer[] = [];
      for (let i = 0; i < 6; i++) answers.push(await stack.api('GET', '/api/v1/workflows', { key: k }));
      expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expectRateLimited(answers[5], 'key');
    }
    // The workspace has made 10: a third key, unused so far, is refused by the workspace policy.
    const third = await stack.api('GET', '/api/v1/workflows', { key: c });
    expectRateLimited(third, 'workspace');
    expect(third.body.detail).toMatch(/workspace/);
    expect(await counted(`key:${keyIds[0]}`)).toBe(5);
    expect(await counted(`key:${keyIds[1]}`)).toBe(5);
    // The workspace's refusal did not count against the third key.
    expect(await counted(`key:${keyIds[2]}`)).toBe(0);
    expect(await counted(`ws:${workspaceId}`)).toBe(10);
  });

  it('holds exactly under concurrent requests from several keys', async () => {
    const { workspaceId, keys, keyIds } = await enterprise(5, 3);
    const answers = await Promise.all(
      keys.flatMap((key) => Array.from({ length: 8 }, () => stack.api('GET', '/api/v1/workflows', { key }).then((r) => ({ key, r })))),
    );
    const all = answers.map((x) => x.r);
    expect(ok(all)).toBe(10);
    expect(limited(all)).toBe(14);
    for (const key of keys) expect(ok(answers.filter((x) => x.key === key).map((x) => x.r))).toBeLessThanOrEqual(5);
    expect(await counted(`ws:${workspaceId}`)).toBe(10);
    const perKey = await Promise.all(keyIds.map((id) => counted(`key:${id}`)));
    expect(perKey.reduce((s, n) => s! + (n ?? 0), 0)).toBe(10);
  });

  it('never serves a busy key past its figure under concurrent requests, though its points are taken a lease at a time', async () => {
    const { workspaceId, keyIds, keys } = await enterprise(100);
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 10; i++) statuses.push((await stack.api('GET', '/api/v1/workflows', { key: keys[0] })).status);
      }),
    );
    expect(statuses.filter((st) => st !== 200 && st !== 429)).toEqual([]);
    const served = statuses.filter((st) => st === 200).length;
    expect(served).toBeLessThanOrEqual(100);
    // A request its count refused is served from points a concurrent request's lease left: at most
    // one lease (1/8 of the figure) can be stranded when the last callers stop.
    expect(served).toBeGreaterThanOrEqual(100 - 100 / 8);
    // Points taken beyond the figure were given back; what stays counted is served plus unused leases.
    expect(await counted(`key:${keyIds[0]}`)).toBeLessThanOrEqual(100);
    expect(await counted(`ws:${workspaceId}`)).toBeLessThanOrEqual(200);
  });

  it('applies a plan change (svc workspace set-plan) on the very next request', async () => {
    const { workspaceId, keys } = await enterprise(3);
    const [key] = keys;
    for (let i = 0; i < 3; i++) expect((await stack.api('GET', '/api/v1/workflows', { key })).status).toBe(200);
    expectRateLimited(await stack.api('GET', '/api/v1/workflows', { key }), 'key');

    expect(await svc(['workspace', 'set-plan', workspaceId, 'enterprise', '--rate-limit', '6'])).toMatchObject({ rate_limit_per_min: 6 });
    const raised = await stack.api('GET', '/api/v1/workflows', { key });
    expect(raised.status).toBe(200);
    expect(raised.headers.get('ratelimit-policy')).toBe('"key";q=6;w=60, "workspace";q=12;w=60');
    expect(rateLimit(raised).remaining).toBe(2);

    await svc(['workspace', 'set-plan', workspaceId, 'basic']);
    const basic = await stack.api('GET', '/api/v1/workflows', { key });
    expect(basic.headers.get('ratelimit-policy')).toBe('"key";q=120;w=60, "workspace";q=240;w=60');
    expect(rateLimit(basic).remaining).toBe(115);

    await svc(['workspace', 'set-plan', workspaceId, 'enterprise', '--rate-limit', '2']);
    expectRateLimited(await stack.api('GET', '/api/v1/workflows', { key }), 'key');
  });
});

describe('across gateway instances', () => {
  let gateways: Spawned[] = [];
  let urls: string[] = [];
  const freePort = () =>
    new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    gateways = await Promise.all(
      ports.map((port) =>
        spawnApp('gateway', {
          PORT: String(port),
          HOST: '127.0.0.1',
          TEMPORAL_TASK_QUEUE: stack.taskQueue,
          LOG_LEVEL: 'info',
          RATE_LIMIT_UNAUTHENTICATED_PER_MIN: '4',
        }),
      ),
    );
    urls = ports.map((p) => `http://127.0.0.1:${p}`);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
  });

  it('shares one key count between two gateway processes on the same database', async () => {
    const { keys } = await enterprise(5);
    const from = randomLoopback();
    const seen: [number, number][] = [];
    for (let i = 0; i < 5; i++) {
      const r = await send(urls[i % 2], 'GET', '/api/v1/workflows', { key: keys[0], from });
      seen.push([r.status, rateLimit(r).remaining]);
    }
    expect(seen).toEqual([
      [200, 4],
      [200, 3],
      [200, 2],
      [200, 1],
      [200, 0],
    ]);
    expectRateLimited(await send(urls[1], 'GET', '/api/v1/workflows', { key: keys[0], from }), 'key');
    expectRateLimited(await send(urls[0], 'GET', '/api/v1/workflows', { key: keys[0], from }), 'key');
  });

  it('holds the per-key and per-workspace figures exactly under concurrent load on both processes', async () => {
    const { workspaceId, keys } = await enterprise(5, 3);
    const from = randomLoopback();
    const plan = keys.flatMap((key, k) => Array.from({ length: 8 }, (_, i) => ({ key, url: urls[(i + k) % 2] })));
    const answers = await Promise.all(
      plan.map((p) => send(p.url, 'GET', '/api/v1/workflows', { key: p.key, from }).then((r) => ({ ...p, r }))),
    );
    expect(ok(answers.map((a) => a.r))).toBe(10);
    for (const key of keys) expect(ok(answers.filter((a) => a.key === key).map((a) => a.r))).toBeLessThanOrEqual(5);
    // Each process answered its twelve with 200 or 429 only. Counted per process, each could have allowed
    // ten, twenty in all; which process the ten shared ones land on is the race's to decide.
    for (const url of urls) {
      const mine = answers.filter((a) => a.url === url).map((a) => a.r.status);
      expect(mine).toHaveLength(12);
      expect(mine.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    }
    expect(await counted(`ws:${workspaceId}`)).toBe(10);
  });

  it('never lets a busy key past its figure on both processes together, each taking its points a lease at a time', async () => {
    const { keys, keyIds } = await enterprise(200);
    const from = randomLoopback();
    const statuses: number[] = [];
    for (let i = 0; i < 260; i++) statuses.push((await send(urls[i % 2], 'GET', '/api/v1/workflows', { key: keys[0], from })).status);
    const served = statuses.filter((st) => st === 200).length;
    expect(served + statuses.filter((st) => st === 429).length).toBe(260);
    expect(served).toBeLessThanOrEqual(200);
    // A lease is at most 1/8 of what is left of the figure: each process holds at most 25 unused points.
    expect(served).toBeGreaterThanOrEqual(200 - 2 * 25);
    expect(statuses.slice(-2)).toEqual([429, 429]);
    expect(await counted(`key:${keyIds[0]}`)).toBeLessThanOrEqual(200);
  });

  it("counts a flood of invalid bearer tokens against its address's unauthenticated figure, never a valid key from it", async () => {
    const from = randomLoopback();
    // Shaped like a key but unknown, not a key's shape, and not a bearer at all: each is unauthenticated.
    const headers = [
      { authorization: `Bearer svc_${'q'.repeat(43)}` },
      { authorization: 'Bearer not-a-key' },
      { authorization: 'Basic dTpw' },
    ];
    const flood = await Promise.all(
      Array.from({ length: 24 }, (_, i) => send(urls[i % 2], 'GET', '/api/v1/workflows', { headers: headers[i % 3], from })),
    );
    expect(flood.filter((r) => r.status === 401)).toHaveLength(4);
    const refused = flood.filter((r) => r.status === 429);
    expect(refused).toHaveLength(20);
    for (const r of refused) expectRateLimited(r, 'ip');
    // Spent: every kind is refused, whichever process it reaches.
    for (const [i, h] of headers.entries())
      expectRateLimited(await send(urls[i % 2], 'GET', '/api/v1/workflows', { headers: h, from }), 'ip');
    // A valid key from the same address is counted against its key only, and served.
    const { key, workspaceId } = await stack.tenant();
    for (const url of urls) {
      const valid = await send(url, 'GET', '/api/v1/workflows', { key, from });
      expect(valid.status).toBe(200);
      expect(valid.headers.get('ratelimit-policy')).not.toContain('"ip"');
    }
    expect(await counted(`ws:${workspaceId}`)).toBe(2);
    expect(await counted(`ip:${from}`)).toBe(4);
  });

  it('limits unauthenticated requests per client address across processes, before any key lookup', async () => {
    const from = randomLoopback();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await send(urls[i % 2], 'GET', '/api/v1/workflows', { key: 'svc_' + 'y'.repeat(43), from });
      expect(r.headers.get('ratelimit-policy')).toBe('"ip";q=4;w=60');
      expect(rateLimit(r).remaining).toBe(3 - i);
      statuses.push(r.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401]);
    expectRateLimited(await send(urls[0], 'GET', '/api/v1/workflows', { from }), 'ip');
    expectRateLimited(await send(urls[1], 'GET', '/api/v1/openapi.json', { from }), 'ip');
    // A bad key from the spent address is refused too; a valid key never is (its own budget applies).
    expectRateLimited(await send(urls[0], 'GET', '/api/v1/workflows', { key: 'svc_' + 'z'.repeat(43), from }), 'ip');
    const { key } = await stack.tenant();
    const valid = await send(urls[1], 'GET', '/api/v1/workflows', { key, from });
    expect(valid.status).toBe(200);
    expect(rateLimit(valid).name).not.toBe('ip');
    expect(await counted(`ip:${from}`)).toBe(4);
    // Another address is not affected.
    const other = await send(urls[0], 'GET', '/api/v1/workflows', { from: randomLoopback() });
    expect(other.status).toBe(401);
    expect(rateLimit(other)).toMatchObject({ name: 'ip', remaining: 3 });
  });
});
