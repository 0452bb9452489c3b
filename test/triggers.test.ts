import { createHmac, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { showTrigger } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { waitFor } from './helpers/fixtures';
import type { HttpAnswer } from './helpers/http';
import { startExtraGateway } from './helpers/extraGateway';
import type { ExtraGateway } from './helpers/extraGateway';
import { rawExchange } from './helpers/rawHttp';
import { visibilityCaughtUp } from './helpers/visibility';

/**
 * The inbound webhook trigger against the real gateway, PostgreSQL and
 * Temporal. After every refusal the workflow has no run in PostgreSQL and none in
 * Temporal; each block ends with an accepted request on the same workflow, so the
 * counting itself is shown to see runs.
 */

const LIMIT = 256 * 1024;

let stack: TestStack;
let key: string;
let workspaceId: string;
/** The same app on ::1, which it trusts as a proxy (TRUSTED_PROXY_CIDRS=::1/128). */
let v6: ExtraGateway;
/** The same app on an IPv6 socket bound to ::ffff:127.0.0.1: IPv4 peers appear IPv4-mapped. */
let mapped: ExtraGateway;

beforeAll(async () => {
  stack = await startStack();
  ({ key, workspaceId } = await stack.tenant());
  v6 = await startExtraGateway(stack, '::1', { TRUSTED_PROXY_CIDRS: ['::1/128'] });
  mapped = await startExtraGateway(stack, '::ffff:127.0.0.1');
});
afterAll(async () => {
  await v6?.close();
  await mapped?.close();
  await stack?.stop();
});

interface Trigger {
  wfId: string;
  url: string;
  path: string;
  secret: string;
  signingSecret: string;
}

let seq = 0;
/** A fresh workflow (so run counts start at zero) whose output is its input. */
async function makeTrigger(trigger?: Record<string, unknown>, opts: { workspaceId?: string; inputSchema?: object } = {}): Promise<Trigger> {
  const slug = `hook-${++seq}-${randomBytes(3).toString('hex')}`;
  const wf = await stack.apply(opts.workspaceId ?? workspaceId, {
    name: 'Echo',
    slug,
    steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
    ...(opts.inputSchema ? { input_schema: opts.inputSchema } : {}),
    ...(trigger ? { trigger } : {}),
  });
  const t = await showTrigger(stack.db.prisma, stack.box, { workflowId: wf.id, baseUrl: stack.url });
  return { wfId: wf.id, url: t.url, path: new URL(t.url).pathname, secret: t.secret, signingSecret: t.signing_secret };
}

const sign = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex');

/** Headers of a correct delivery (content type, secret, signature); `omit`/`extra` change them. */
function good(t: Trigger, body: string | Buffer, extra: Record<string, string> = {}, omit: string[] = []): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    'x-svc-secret': t.secret,
    'x-svc-signature': sign(t.signingSecret, body),
    ...extra,
  };
  for (const o of omit) delete h[o];
  return h;
}

/** A server-side POST (undici, never the global fetch); `chunked` streams the body without Content-Length. */
async function post(url: string, body: string | Buffer | undefined, headers: Record<string, string>, chunked = false): Promise<HttpAnswer> {
  let payload: string | Buffer | Readable | undefined = body;
  if (chunked && body !== undefined) {
    const buf = Buffer.from(body);
    payload = Readable.from(
      (function* () {
        for (let i = 0; i < buf.length; i += 16 * 1024) yield buf.subarray(i, i + 16 * 1024);
      })(),
    );
  }
  const res = await request(url, { method: 'POST', headers, body: payload });
  const text = await res.body.text();
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of [v].flat()) h.append(k, one);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.statusCode, headers: h, body: parsed };
}

const pgRuns = (wfId: string) => stack.db.prisma.run.count({ where: { workflowId: wfId } });
const temporalRuns = async (wfId: string) => (await stack.temporal.workflow.count(`SvcWorkflowId = "${wfId}"`)).count;

/** A problem with this status and code, and still no run anywhere. */
async function expectRefused(res: HttpAnswer, status: number, code: string, wfId: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.request_id).toBe(res.headers.get('request-id'));
  expect(await pgRuns(wfId)).toBe(0);
  expect(await temporalRuns(wfId)).toBe(0);
}

/** Visibility is eventually consistent: once it has caught up, a stray execution would show. */
async function expectStillNoRuns(wfId: string) {
  await visibilityCaughtUp(stack.temporal);
  expect(await pgRuns(wfId)).toBe(0);
  expect(await temporalRuns(wfId)).toBe(0);
}

async function expectRuns(wfId: string, n: number) {
  expect(await pgRuns(wfId)).toBe(n);
  await waitFor(
    () => temporalRuns(wfId),
    (c) => c === n,
  );
}

function expectAccepted(res: HttpAnswer) {
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ run_id: expect.stringMatching(/^run_[0-9a-z]+$/), status: expect.any(String) });
  expect(['queued', 'running', 'succeeded']).toContain(res.body.status);
  expect(res.headers.get('idempotent-replayed')).toBeNull();
}

describe('the trigger URL and its secrets', () => {
  it('is fixed, unguessable and shown with generated secrets that are stored encrypted', async () => {
    const t = await makeTrigger({ secret: true, signature: true });
    const wf = await stack.api('GET', `/api/v1/workflows/${t.wfId}`, { key });
    expect(wf.body.trigger).toEqual({ url: t.url, auth: { secret: true, signature: true } });
    expect(t.url).toMatch(new RegExp(`^${stack.url}/hooks/trg_[0-9a-z]{24}$`));
    expect(t.secret).toMatch(/^tsec_[A-Za-z0-9_-]{43}$/);
    expect(t.signingSecret).toMatch(/^tsig_[A-Za-z0-9_-]{43}$/);
    const row = await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: t.wfId } });
    expect(row.triggerSecretEnc).not.toContain(t.secret.slice(5));
    expect(row.triggerSigningSecretEnc).not.toContain(t.signingSecret.slice(5));
    // A new version keeps the URL and the secrets.
    await stack.apply(workspaceId, {
      name: 'Echo v2',
      slug: (await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: t.wfId } })).slug,
      steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
      trigger: { secret: true, signature: true },
    });
    const again = await showTrigger(stack.db.prisma, stack.box, { workflowId: t.wfId, baseUrl: stack.url });
    expect([again.url, again.secret, again.signing_secret]).toEqual([t.url, t.secret, t.signingSecret]);
    const other = await makeTrigger();
    expect(other.url).not.toBe(t.url);
    expect(other.secret).not.toBe(t.secret);
  });
});

describe('auth: secret only', () => {
  it('accepts the shared secret and refuses every wrong one, starting nothing', async () => {
    const t = await makeTrigger({ secret: true, signature: false });
    const other = await makeTrigger();
    const body = '{"order":1}';
    const h = good(t, body, {}, ['x-svc-signature']);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': '' }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, good(t, body, {}, ['x-svc-secret'])), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': 'wrong' }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': t.secret + 'x' }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': t.secret.slice(0, -1) }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': t.secret.toUpperCase() }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': other.secret }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': t.signingSecret }), 401, 'invalid_trigger_secret', t.wfId);
    const wrong = await post(t.url, body, { ...h, 'x-svc-secret': 'wrong' });
    expect(JSON.stringify(wrong.body)).not.toContain(t.secret);
    await expectStillNoRuns(t.wfId);

    // A signature header is not needed (and not checked) in this mode.
    const ok = await post(t.url, body, { ...h, 'x-svc-signature': 'not-a-signature' });
    expectAccepted(ok);
    await expectRuns(t.wfId, 1);
  });
});

describe('auth: signature only', () => {
  it('accepts the HMAC of the raw bytes (bare or sha256=) and refuses every wrong one, starting nothing', async () => {
    const t = await makeTrigger({ secret: false, signature: true });
    // Deliberately not what JSON.stringify writes: spaces, key order, an escaped character.
    const body = '{ "b": 2,   "a": "caf\\u00e9",\n "list": [1, 2.50] }';
    const sig = sign(t.signingSecret, body);
    const base = { 'content-type': 'application/json' };
    const refuse = (headers: Record<string, string>, b: string = body) => post(t.url, b, { ...base, ...headers });

    await expectRefused(await refuse({}), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': '' }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-secret': t.secret }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': 'f'.repeat(64) }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': sig.toUpperCase() }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': `sha1=${sig}` }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': `sha256=${sig.slice(0, -1)}` }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': sign(t.secret, body) }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await refuse({ 'x-svc-signature': sign(t.signingSecret, body + ' ') }), 401, 'invalid_trigger_signature', t.wfId);
    // A signature over the re-serialized JSON is not a signature over the bytes that were sent.
    const reserialized = JSON.stringify(JSON.parse(body));
    expect(reserialized).not.toBe(body);
    await expectRefused(await refuse({ 'x-svc-signature': sign(t.signingSecret, reserialized) }), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(
      await refuse({ 'x-svc-signature': `sha256=${sign(t.signingSecret, reserialized)}` }),
      401,
      'invalid_trigger_signature',
      t.wfId,
    );
    // …while the signature of the sent bytes is accepted for them only.
    await expectRefused(await refuse({ 'x-svc-signature': sig }, reserialized), 401, 'invalid_trigger_signature', t.wfId);
    await expectStillNoRuns(t.wfId);

    expectAccepted(await refuse({ 'x-svc-signature': sig }));
    expectAccepted(await refuse({ 'x-svc-signature': `sha256=${sig}` }));
    await expectRuns(t.wfId, 2);
    const runs = await stack.db.prisma.run.findMany({ where: { workflowId: t.wfId } });
    for (const r of runs) expect(r.input).toEqual({ b: 2, a: 'café', list: [1, 2.5] });
  });
});

describe('auth: secret and signature', () => {
  it('needs both, and refuses each wrong one, starting nothing', async () => {
    const t = await makeTrigger({ secret: true, signature: true });
    const body = '{"both":true}';
    const h = good(t, body);
    await expectRefused(await post(t.url, body, good(t, body, {}, ['x-svc-signature'])), 401, 'invalid_trigger_signature', t.wfId);
    await expectRefused(await post(t.url, body, good(t, body, {}, ['x-svc-secret'])), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-secret': 'nope' }), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, body, { ...h, 'x-svc-signature': sign('nope', body) }), 401, 'invalid_trigger_signature', t.wfId);
    // Secret before signature: both wrong → the secret is named.
    await expectRefused(
      await post(t.url, body, { ...h, 'x-svc-secret': 'nope', 'x-svc-signature': 'nope' }),
      401,
      'invalid_trigger_secret',
      t.wfId,
    );
    await expectStillNoRuns(t.wfId);

    const ok = await post(t.url, body, h);
    expectAccepted(ok);
    await expectRuns(t.wfId, 1);
  });

  it('uses the secret-only default when the definition has no trigger block', async () => {
    const t = await makeTrigger();
    const body = '{}';
    await expectRefused(await post(t.url, body, good(t, body, {}, ['x-svc-secret'])), 401, 'invalid_trigger_secret', t.wfId);
    expectAccepted(await post(t.url, body, good(t, body, {}, ['x-svc-signature'])));
  });
});

describe('the body', () => {
  it('must be a JSON object sent as application/json (checked after authentication), and match input_schema', async () => {
    const t = await makeTrigger(
      { secret: true, signature: true },
      { inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    );
    const cases: [string, Record<string, string>, number, string][] = [
      ['{"name":"x"}', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      ['{"name":"x"}', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type'],
      ['{"name":"x"}', { 'content-type': 'application/json; charset=iso-8859-1' }, 415, 'unsupported_media_type'],
      ['{"name":"x"}', { 'content-encoding': 'gzip' }, 415, 'unsupported_media_type'],
      ['{"name":', {}, 400, 'invalid_json'],
      ['', {}, 400, 'invalid_json'],
      ['[{"name":"x"}]', {}, 400, 'invalid_request'],
      ['"name"', {}, 400, 'invalid_request'],
      ['null', {}, 400, 'invalid_request'],
      ['{"name":42}', {}, 422, 'validation_failed'],
    ];
    for (const [body, extra, status, code] of cases) {
      await expectRefused(await post(t.url, body, good(t, body, extra)), status, code, t.wfId);
    }
    // No Content-Type at all.
    await expectRefused(
      await post(t.url, '{"name":"x"}', good(t, '{"name":"x"}', {}, ['content-type'])),
      415,
      'unsupported_media_type',
      t.wfId,
    );
    // A bad body with a bad secret is an authentication failure first.
    await expectRefused(await post(t.url, '{"name":', good(t, '{"name":', { 'x-svc-secret': 'x' })), 401, 'invalid_trigger_secret', t.wfId);
    await expectStillNoRuns(t.wfId);

    const body = '{"name":"x"}';
    expectAccepted(await post(t.url, body, good(t, body, { 'content-type': 'application/json; charset=utf-8' })));
    await expectRuns(t.wfId, 1);
  });

  it('answers 404 for an unknown trigger, and refuses other methods', async () => {
    const t = await makeTrigger();
    const body = '{}';
    for (const p of ['/hooks/trg_000000000000000000000000', '/hooks/nope', `/hooks/${t.path.split('/')[2].toUpperCase()}`]) {
      const r = await post(stack.url + p, body, good(t, body));
      expect([r.status, r.body.code]).toEqual([404, 'not_found']);
      expect(r.body.detail).toBe('No trigger at this address');
    }
    const get = await request(t.url, { method: 'GET' });
    await get.body.text();
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    // Not under /api/v1, and no API key is involved.
    const api = await post(`${stack.url}/api/v1${t.path}`, body, { ...good(t, body), authorization: `Bearer ${key}` });
    expect(api.status).toBe(404);
    await expectStillNoRuns(t.wfId);
  });

  it('applies no browser rule: a sender adding Origin and Sec-Fetch-* headers is served', async () => {
    const t = await makeTrigger();
    const body = '{"name":"x"}';
    const headers = { origin: 'https://sender.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' };
    expectAccepted(await post(t.url, body, good(t, body, headers)));
    await expectRuns(t.wfId, 1);
  });
});

describe('deep nesting', () => {
  it('answers 422 validation_failed for a body nested deeper than 64 levels, never a 500, and starts nothing', async () => {
    const t = await makeTrigger();
    const body = (levels: number) => `{"deep":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    for (const levels of [65, 100_000]) {
      const b = body(levels);
      await expectRefused(await post(t.url, b, good(t, b)), 422, 'validation_failed', t.wfId);
    }
    const ok = body(64);
    expectAccepted(await post(t.url, ok, good(t, ok)));
    await expectRuns(t.wfId, 1);
  });
});

describe('the 256 KB limit', () => {
  /** A JSON object of exactly `size` bytes. */
  const objectOf = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;

  it('accepts exactly 262144 bytes and refuses one byte more, with Content-Length and chunked', async () => {
    const t = await makeTrigger({ secret: true, signature: true });
    const exact = objectOf(LIMIT);
    const over = objectOf(LIMIT + 1);
    expect([Buffer.byteLength(exact), Buffer.byteLength(over)]).toEqual([262144, 262145]);

    await expectRefused(await post(t.url, over, good(t, over)), 413, 'payload_too_large', t.wfId);
    await expectRefused(await post(t.url, over, good(t, over), true), 413, 'payload_too_large', t.wfId);
    const big = objectOf(3 * 1024 * 1024);
    await expectRefused(await post(t.url, big, good(t, big)), 413, 'payload_too_large', t.wfId);
    await expectRefused(await post(t.url, big, good(t, big), true), 413, 'payload_too_large', t.wfId);
    // The size comes first: even a request that would fail everything else is a 413.
    await expectRefused(await post(t.url, over, { 'content-type': 'text/plain', 'x-svc-secret': 'x' }), 413, 'payload_too_large', t.wfId);
    await expectStillNoRuns(t.wfId);

    const withLength = await post(t.url, exact, good(t, exact));
    expectAccepted(withLength);
    const chunked = await post(t.url, exact, good(t, exact), true);
    expectAccepted(chunked);
    await expectRuns(t.wfId, 2);
    const run = await stack.db.prisma.run.findUniqueOrThrow({ where: { id: chunked.body.run_id } });
    expect((run.input as { pad: string }).pad).toHaveLength(LIMIT - 10);
  });

  it('refuses from Content-Length before reading the body, and cuts a chunked body off while streaming', async () => {
    const t = await makeTrigger({ secret: true, signature: false });
    const { host } = new URL(stack.url);
    // The body is announced but never sent: only an answer from the header can arrive.
    const announced = await rawExchange(
      t.url,
      `POST ${t.path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nx-svc-secret: ${t.secret}\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
      [],
      5000,
    );
    expect([announced.status, JSON.parse(announced.body).code]).toEqual([413, 'payload_too_large']);
    expect(announced.headers.connection).toBe('close');

    // 262145 bytes in chunks and no final chunk: the answer comes while the body is still open.
    const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    const payload = Buffer.from(objectOf(LIMIT + 1));
    const parts = [chunk(payload.subarray(0, 100_000)), chunk(payload.subarray(100_000, 200_000)), chunk(payload.subarray(200_000))];
    const streamed = await rawExchange(
      t.url,
      `POST ${t.path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nx-svc-secret: ${t.secret}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      parts,
      5000,
    );
    expect([streamed.status, JSON.parse(streamed.body).code]).toEqual([413, 'payload_too_large']);
    await expectStillNoRuns(t.wfId);

    // The same framing with exactly 262144 bytes and the final chunk is accepted.
    const exact = Buffer.from(objectOf(LIMIT));
    const ok = await rawExchange(
      t.url,
      `POST ${t.path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nx-svc-secret: ${t.secret}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      [chunk(exact.subarray(0, 131072)), chunk(exact.subarray(131072)), Buffer.from('0\r\n\r\n')],
      10_000,
    );
    expect(ok.status).toBe(202);
    await expectRuns(t.wfId, 1);
  });
});

describe('IP allowlists (socket address)', () => {
  const body = '{"ip":true}';

  it('matches IPv4 CIDRs, including IPv4-mapped IPv6 peers', async () => {
    const t = await makeTrigger({ secret: true, ip_allowlist: ['127.0.0.0/8'] });
    // ::1 is outside 127.0.0.0/8; a wrong secret does not matter, the address is checked first.
    await expectRefused(await post(v6.url + t.path, body, good(t, body)), 403, 'ip_not_allowed', t.wfId);
    await expectRefused(await post(v6.url + t.path, body, good(t, body, { 'x-svc-secret': 'x' })), 403, 'ip_not_allowed', t.wfId);
    await expectStillNoRuns(t.wfId);
    expectAccepted(await post(t.url, body, good(t, body)));
    expectAccepted(await post(mapped.url + t.path, body, good(t, body)));
    await expectRuns(t.wfId, 2);
  });

  it('matches IPv6 CIDRs', async () => {
    const t = await makeTrigger({ secret: true, ip_allowlist: ['::1/128', '2001:db8::/32'] });
    await expectRefused(await post(t.url, body, good(t, body)), 403, 'ip_not_allowed', t.wfId);
    await expectRefused(await post(mapped.url + t.path, body, good(t, body)), 403, 'ip_not_allowed', t.wfId);
    await expectStillNoRuns(t.wfId);
    expectAccepted(await post(v6.url + t.path, body, good(t, body)));
    await expectRuns(t.wfId, 1);
  });

  it('refuses every address outside a non-empty list', async () => {
    const t = await makeTrigger({ secret: true, ip_allowlist: ['192.0.2.0/24', '2001:db8::/32'] });
    for (const base of [stack.url, v6.url, mapped.url]) {
      await expectRefused(await post(base + t.path, body, good(t, body)), 403, 'ip_not_allowed', t.wfId);
    }
    await expectStillNoRuns(t.wfId);
  });

  it('reads X-Forwarded-For only from a trusted proxy (TRUSTED_PROXY_CIDRS)', async () => {
    const t = await makeTrigger({ secret: true, ip_allowlist: ['203.0.113.0/24'] });
    const xff = (v: string) => good(t, body, { 'x-forwarded-for': v });
    // 127.0.0.1 is not a trusted proxy: its X-Forwarded-For is ignored.
    await expectRefused(await post(t.url, body, xff('203.0.113.5')), 403, 'ip_not_allowed', t.wfId);
    // ::1 is trusted, but the client it reports is outside the list…
    await expectRefused(await post(v6.url + t.path, body, xff('198.51.100.1')), 403, 'ip_not_allowed', t.wfId);
    // …and a spoofed entry on the left is never reached: the rightmost untrusted hop is the client.
    await expectRefused(await post(v6.url + t.path, body, xff('203.0.113.5, 198.51.100.1')), 403, 'ip_not_allowed', t.wfId);
    await expectRefused(await post(v6.url + t.path, body, xff('not-an-ip')), 403, 'ip_not_allowed', t.wfId);
    // Without the header the trusted proxy itself is the client.
    await expectRefused(await post(v6.url + t.path, body, good(t, body)), 403, 'ip_not_allowed', t.wfId);
    await expectStillNoRuns(t.wfId);
    expectAccepted(await post(v6.url + t.path, body, xff('203.0.113.5')));
    expectAccepted(await post(v6.url + t.path, body, xff('198.51.100.1, 203.0.113.5, ::1')));
    await expectRuns(t.wfId, 2);
  });
});

describe('required headers', () => {
  it('need to be present, or carry the exact value, before the secret is looked at', async () => {
    const t = await makeTrigger({ secret: true, required_headers: { 'X-Source': null, 'X-Env': 'prod' } });
    const body = '{"h":1}';
    const cases: Record<string, string>[] = [
      {},
      { 'x-source': 'a' },
      { 'x-env': 'prod' },
      { 'x-source': 'a', 'x-env': 'Prod' },
      { 'x-source': 'a', 'x-env': 'prod2' },
      { 'x-source': 'a', 'x-env': '' },
    ];
    for (const extra of cases) {
      await expectRefused(await post(t.url, body, good(t, body, extra)), 403, 'required_header_missing', t.wfId);
    }
    const wrongSecret = await post(t.url, body, good(t, body, { 'x-svc-secret': 'x' }));
    await expectRefused(wrongSecret, 403, 'required_header_missing', t.wfId);
    expect(wrongSecret.body.detail).not.toMatch(/x-env|x-source|prod/i);
    await expectRefused(
      await post(t.url, body, good(t, body, { 'x-source': 'a', 'x-env': 'prod', 'x-svc-secret': 'x' })),
      401,
      'invalid_trigger_secret',
      t.wfId,
    );
    await expectStillNoRuns(t.wfId);
    expectAccepted(await post(t.url, body, good(t, body, { 'X-SOURCE': 'anything', 'X-Env': 'prod' })));
    await expectRuns(t.wfId, 1);
  });
});

describe('plans', () => {
  it('refuses a Free workspace with 403 plan_does_not_allow_runs after the body checks', async () => {
    const free = await stack.tenant({ plan: 'free' });
    const t = await makeTrigger({ secret: true }, { workspaceId: free.workspaceId });
    await expectRefused(await post(t.url, '{}', good(t, '{}', { 'x-svc-secret': 'x' })), 401, 'invalid_trigger_secret', t.wfId);
    await expectRefused(await post(t.url, '{', good(t, '{')), 400, 'invalid_json', t.wfId);
    await expectRefused(await post(t.url, '{}', good(t, '{}')), 403, 'plan_does_not_allow_runs', t.wfId);
    await expectRefused(await post(t.url, '{}', good(t, '{}', { 'idempotency-key': 'free-1' })), 403, 'plan_does_not_allow_runs', t.wfId);
    await expectStillNoRuns(t.wfId);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId: free.workspaceId } })).toBe(0);
  });
});

describe('Idempotency-Key', () => {
  it('replays a delivery seen within 24 h with 200 and the original run id, whatever the body', async () => {
    const t = await makeTrigger({ secret: true });
    const first = await post(t.url, '{"n":1}', good(t, '{"n":1}', { 'idempotency-key': 'dlv-1' }));
    expectAccepted(first);
    const again = await post(t.url, '{"n":1}', good(t, '{"n":1}', { 'idempotency-key': 'dlv-1' }));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ run_id: first.body.run_id, status: expect.any(String) });
    const changed = await post(t.url, '{"n":2}', good(t, '{"n":2}', { 'idempotency-key': '"dlv-1"' }));
    expect([changed.status, changed.body.run_id]).toEqual([200, first.body.run_id]);
    const run = await stack.api('GET', `/api/v1/runs/${first.body.run_id}`, { key });
    expect([run.body.input, run.body.idempotency_key]).toEqual([{ n: 1 }, 'dlv-1']);
    // A replay still passes the checks first.
    const unauth = await post(t.url, '{"n":1}', good(t, '{"n":1}', { 'idempotency-key': 'dlv-1', 'x-svc-secret': 'x' }));
    expect([unauth.status, unauth.body.code]).toEqual([401, 'invalid_trigger_secret']);
    // A malformed key is refused (after authentication), starting nothing.
    const bad = await post(t.url, '{"n":3}', good(t, '{"n":3}', { 'idempotency-key': 'x'.repeat(256) }));
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
    const badUnauth = await post(t.url, '{"n":3}', good(t, '{"n":3}', { 'idempotency-key': 'x'.repeat(256), 'x-svc-secret': 'x' }));
    expect([badUnauth.status, badUnauth.body.code]).toEqual([401, 'invalid_trigger_secret']);
    const second = await post(t.url, '{"n":1}', good(t, '{"n":1}', { 'idempotency-key': 'dlv-2' }));
    expectAccepted(second);
    expect(second.body.run_id).not.toBe(first.body.run_id);
    const none = await post(t.url, '{"n":1}', good(t, '{"n":1}'));
    expectAccepted(none);
    await expectRuns(t.wfId, 3);
    await visibilityCaughtUp(stack.temporal);
    expect(await temporalRuns(t.wfId)).toBe(3);
  });

  it('scopes keys to the trigger and forgets them after 24 h', async () => {
    const a = await makeTrigger({ secret: true });
    const b = await makeTrigger({ secret: true });
    const ra = await post(a.url, '{}', good(a, '{}', { 'idempotency-key': 'shared' }));
    const rb = await post(b.url, '{}', good(b, '{}', { 'idempotency-key': 'shared' }));
    expectAccepted(ra);
    expectAccepted(rb);
    // The same key through the API (scoped to the workflow) is a different key too.
    const api = await stack.api('POST', `/api/v1/workflows/${a.wfId}/runs`, {
      key,
      body: { input: {} },
      headers: { 'idempotency-key': 'shared' },
    });
    expect(api.status).toBe(201);
    await stack.db.prisma.idempotencyKey.updateMany({
      where: { scope: (await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: a.wfId } })).triggerId, key: 'shared' },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const later = await post(a.url, '{}', good(a, '{}', { 'idempotency-key': 'shared' }));
    expectAccepted(later);
    expect(later.body.run_id).not.toBe(ra.body.run_id);
    await expectRuns(a.wfId, 3);
  });

  it('starts exactly one run, in PostgreSQL and in Temporal, for 20 concurrent copies', async () => {
    const t = await makeTrigger({ secret: true, signature: true });
    const body = '{"concurrent":true}';
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(t.url, body, good(t, body, { 'idempotency-key': 'burst' }))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.body.run_id)).size).toBe(1);
    for (const a of answers.filter((x) => x.status === 200)) expect(a.headers.get('idempotent-replayed')).toBe('true');
    await expectRuns(t.wfId, 1);
    await visibilityCaughtUp(stack.temporal);
    expect(await temporalRuns(t.wfId)).toBe(1);
    expect(await pgRuns(t.wfId)).toBe(1);
  });
});

describe('the run', () => {
  it('has the body as input and trigger "webhook", shows in GET /runs/{id}, and raises the same events as an API run', async () => {
    const t = await makeTrigger({ secret: true, signature: true });
    const body = '{"customer":{"id":7,"tags":["a","b"]},"note":"héllo"}';
    const started = Date.now();
    const res = await post(t.url, body, good(t, body));
    expectAccepted(res);
    // The answer does not wait for the run.
    expect(Date.now() - started).toBeLessThan(5000);
    const runId = res.body.run_id;

    const done = await waitFor(
      () => stack.api('GET', `/api/v1/runs/${runId}`, { key }),
      (r) => r.body.status === 'succeeded',
    );
    expect(done.body).toMatchObject({
      id: runId,
      workflow_id: t.wfId,
      trigger: 'webhook',
      input: JSON.parse(body),
      output: JSON.parse(body),
      idempotency_key: null,
    });
    const list = await stack.api('GET', `/api/v1/workflows/${t.wfId}/runs`, { key });
    expect(list.body.data.map((r: { id: string; trigger: string }) => [r.id, r.trigger])).toEqual([[runId, 'webhook']]);

    const apiRun = await stack.api('POST', `/api/v1/workflows/${t.wfId}/runs`, { key, body: { input: JSON.parse(body), wait: true } });
    expect(apiRun.body.status).toBe('succeeded');
    const eventTypes = async (id: string) =>
      (
        await waitFor(
          () => stack.db.prisma.event.findMany({ where: { dedupeKey: { startsWith: `${id}:` } } }),
          (e) => e.length > 0,
        )
      )
        .map((e) => e.type)
        .sort();
    expect(await eventTypes(runId)).toEqual(await eventTypes(apiRun.body.id));
    const event = await stack.db.prisma.event.findFirstOrThrow({
      where: { type: 'run.succeeded', dedupeKey: { startsWith: `${runId}:` } },
    });
    expect(event.data).toMatchObject({ id: runId, trigger: 'webhook', input: JSON.parse(body) });
  });
});
