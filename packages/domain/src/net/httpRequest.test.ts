import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { createAddressPolicy } from './addressPolicy';
import { BlockedAddressError, SSRF_BLOCKED, createGuardedDispatcher, createGuardedLookup, type ResolveAll } from './guardedDispatcher';
import { HttpRequestError, performHttpRequest, type HttpRequestErrorKind } from './httpRequest';
import { isJsonContentType } from './responseBody';

// A self-signed certificate for 127.0.0.1 / localhost / svc-test.invalid, valid 2000–2099,
// generated for these tests only.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSf+CJxSICbFdI+E7
vLKmaLU8H3ZsEnyWDoOrofLDIgmhRANCAAQcw+6e6uWHwGAsnql4zhebmg5jRUjY
f3cw3AAgdLQ6Yk7W8YDGFeshRbFc1wGh7b5kmUwI8UVpQ3V+N8V3soFN
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBnjCCAUSgAwIBAgIBATAKBggqhkjOPQQDAjATMREwDwYDVQQDDAhzdmMtdGVz
dDAgFw0wMDAxMDEwMDAwMDBaGA8yMDk5MTIzMTAwMDAwMFowEzERMA8GA1UEAwwI
c3ZjLXRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQcw+6e6uWHwGAsnql4
zhebmg5jRUjYf3cw3AAgdLQ6Yk7W8YDGFeshRbFc1wGh7b5kmUwI8UVpQ3V+N8V3
soFNo4GGMIGDMA8GA1UdEwEB/wQFMAMBAf8wLAYDVR0RBCUwI4cEfwAAAYIJbG9j
YWxob3N0ghBzdmMtdGVzdC5pbnZhbGlkMA4GA1UdDwEB/wQEAwIChDATBgNVHSUE
DDAKBggrBgEFBQcDATAdBgNVHQ4EFgQULZ4lDUWxu56Ba75kMyVYc5uUzxMwCgYI
KoZIzj0EAwIDSAAwRQIgXcGQEnMwtI3l+evc71SlNQcwiCP89gdKZzY8tFV3TsQC
IQDN8aAG5xK4ZjiKPlOx0jX8+o5PMteN/CWdoy1itBSu9A==
-----END CERTIFICATE-----
`;

interface Seen {
  method?: string;
  url?: string;
  headers?: http.IncomingHttpHeaders;
  body?: string;
}

let server: http.Server;
let tlsServer: https.Server;
let port: number;
let tlsPort: number;
let hits = 0;
let lastSeen: Seen = {};
const dispatchers: Agent[] = [];

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  hits++;
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    lastSeen = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
    const path = (req.url ?? '/').split('?')[0];
    switch (path) {
      case '/json':
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-multi': ['a', 'b'] as unknown as string });
        res.end(JSON.stringify({ ok: true, list: [1, 2] }));
        return;
      case '/problem':
        res.writeHead(422, { 'content-type': 'application/problem+json' });
        res.end('{"title":"bad"}');
        return;
      case '/bad-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{not json');
        return;
      case '/empty-json':
        res.writeHead(204, { 'content-type': 'application/json' });
        res.end();
        return;
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] });
        res.end('héllo');
        return;
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in latin-1
        return;
      case '/echo':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
        return;
      case '/redirect':
        res.writeHead(302, { location: '/json' });
        res.end('moved');
        return;
      case '/redirect-internal':
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
        return;
      case '/slow':
        // never answers within the test's time limit
        setTimeout(() => {
          if (!res.writableEnded) res.end('late');
        }, 5_000).unref();
        return;
      case '/slow-body':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setTimeout(() => {
          if (!res.writableEnded) res.end('late');
        }, 5_000).unref();
        return;
      case '/big': {
        const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? '0');
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
        res.end(Buffer.alloc(size, 'a'));
        return;
      }
      case '/big-chunked': {
        const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? '0');
        res.writeHead(200, { 'content-type': 'text/plain' }); // no content-length: chunked
        let sent = 0;
        const pump = () => {
          while (sent < size) {
            const n = Math.min(16 * 1024, size - sent);
            sent += n;
            if (!res.write(Buffer.alloc(n, 'b'))) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      case '/status':
        res.writeHead(Number(new URL(req.url ?? '/', 'http://x').searchParams.get('code') ?? '500'));
        res.end();
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
    }
  });
}

function listen(s: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

beforeAll(async () => {
  server = http.createServer(handler);
  tlsServer = https.createServer({ key: TEST_KEY, cert: TEST_CERT }, handler);
  port = await listen(server);
  tlsPort = await listen(tlsServer);
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.close().catch(() => undefined)));
  server.closeAllConnections();
  tlsServer.closeAllConnections();
  await new Promise((r) => server.close(r));
  await new Promise((r) => tlsServer.close(r));
});

beforeEach(() => {
  hits = 0;
  lastSeen = {};
});

function dispatcher(allowCidrs: string[] = [], extra: Partial<Parameters<typeof createGuardedDispatcher>[0]> = {}): Agent {
  const d = createGuardedDispatcher({ policy: createAddressPolicy({ allowCidrs }), connectTimeoutMs: 2_000, ...extra });
  dispatchers.push(d);
  return d;
}

const local = () => dispatcher(['127.0.0.0/8']);

async function failure(p: Promise<unknown>): Promise<HttpRequestError> {
  const err = await p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e) => e,
  );
  expect(err).toBeInstanceOf(HttpRequestError);
  expect(err.stack).toBe(`HttpRequestError: ${err.message}`);
  return err as HttpRequestError;
}

async function expectKind(p: Promise<unknown>, kind: HttpRequestErrorKind): Promise<HttpRequestError> {
  const err = await failure(p);
  expect(err.kind).toBe(kind);
  return err;
}

describe('SSRF guard', () => {
  test('a literal loopback address is refused without an allowlist (nothing reaches the server)', async () => {
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/json`, dispatcher: dispatcher() }),
      'blocked_address',
    );
    expect(err.message).toMatch(/127\.0\.0\.1.*loopback/);
    expect(err.causeCode).toBe(SSRF_BLOCKED);
    expect(hits).toBe(0);
  });

  test('accepted when the operator allows 127.0.0.0/8', async () => {
    const res = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/json`, dispatcher: local() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, list: [1, 2] });
    expect(hits).toBe(1);
  });

  test('a hostname resolving to loopback (localhost) is refused at connect time', async () => {
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://localhost:${port}/json`, dispatcher: dispatcher() }),
      'blocked_address',
    );
    // The host is named; the address it resolved to never is (a tenant could map internal DNS).
    expect(err.message).toMatch(/^Refusing to connect to localhost: /);
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1/);
    expect(hits).toBe(0);
  });

  test('other spellings of loopback are refused too', async () => {
    const d = dispatcher();
    for (const url of [
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://0x7f.1:${port}/`, // WHATWG URL normalizes to 127.0.0.1
      `http://2130706433:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://169.254.169.254/latest/meta-data/`,
    ]) {
      await expectKind(performHttpRequest({ method: 'GET', url, dispatcher: d }), 'blocked_address');
    }
    expect(hits).toBe(0);
  });

  test('DNS rebinding: every resolved address is checked, at connect time', async () => {
    // The name resolves to a public AND a private address: refused even though one is public.
    const mixed: ResolveAll = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expectKind(
      performHttpRequest({ method: 'GET', url: `http://rebind.invalid:${port}/json`, dispatcher: dispatcher([], { resolveAll: mixed }) }),
      'blocked_address',
    );

    // First lookup public, later lookups private: each connection re-resolves and re-checks.
    let calls = 0;
    const flipping: ResolveAll = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const d = dispatcher(['127.0.0.0/8'], { resolveAll: flipping });
    const ok = await performHttpRequest({ method: 'GET', url: `http://flip.invalid:${port}/json`, dispatcher: d });
    expect(ok.status).toBe(200);
    await d.close(); // drop the pooled connection, forcing a new connect
    const d2 = dispatcher(['127.0.0.0/8'], { resolveAll: flipping });
    await expectKind(performHttpRequest({ method: 'GET', url: `http://flip.invalid:${port}/json`, dispatcher: d2 }), 'blocked_address');
    expect(calls).toBe(2);
  });

  test('a redirect to an internal address is returned, never followed', async () => {
    const res = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/redirect-internal`, dispatcher: local() });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
  });

  test('the guarded lookup itself', async () => {
    const lookup = createGuardedLookup(createAddressPolicy(), async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '2001:4860:4860::8888', family: 6 },
    ]);
    const all = await new Promise<unknown>((resolve, reject) =>
      lookup('dns.example', { all: true }, (err: Error | null, addrs: unknown) => (err ? reject(err) : resolve(addrs))),
    );
    expect(all).toEqual([
      { address: '8.8.8.8', family: 4 },
      { address: '2001:4860:4860::8888', family: 6 },
    ]);
    const one = await new Promise<unknown[]>((resolve, reject) =>
      lookup('dns.example', {}, (err: Error | null, addr: unknown, family: unknown) => (err ? reject(err) : resolve([addr, family]))),
    );
    expect(one).toEqual(['8.8.8.8', 4]);

    const blocked = createGuardedLookup(createAddressPolicy(), async () => [{ address: 'fd00:ec2::254', family: 6 }]);
    const err = await new Promise<unknown>((resolve) => blocked('imds.example', { all: true }, (e: unknown) => resolve(e)));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err).toMatchObject({ code: 'SSRF_BLOCKED', hostname: 'imds.example', address: 'fd00:ec2::254', reason: 'metadata' });

    const none = createGuardedLookup(createAddressPolicy(), async () => []);
    const nf = await new Promise<NodeJS.ErrnoException>((resolve) => none('empty.example', {}, (e: NodeJS.ErrnoException) => resolve(e)));
    expect(nf.code).toBe('ENOTFOUND');
  });
});

describe('performHttpRequest', () => {
  test('JSON responses are parsed; headers lower-cased strings, repeated ones joined', async () => {
    const res = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/json?x=1`, dispatcher: local() });
    expect(res).toMatchObject({ status: 200, body: { ok: true, list: [1, 2] } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-multi']).toBe('a, b');
    for (const [k, v] of Object.entries(res.headers)) {
      expect(k).toBe(k.toLowerCase());
      expect(typeof v).toBe('string');
    }
    expect(lastSeen.url).toBe('/json?x=1');
  });

  test('+json content types are parsed; invalid JSON falls back to text; empty body is ""', async () => {
    const d = local();
    expect(await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/problem`, dispatcher: d })).toMatchObject({
      status: 422,
      body: { title: 'bad' },
    });
    expect((await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/bad-json`, dispatcher: d })).body).toBe('{not json');
    const empty = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/empty-json`, dispatcher: d });
    expect(empty).toMatchObject({ status: 204, body: '' });
  });

  test('text responses are decoded (UTF-8 by default, declared charset honoured)', async () => {
    const d = local();
    const text = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/text`, dispatcher: d });
    expect(text.body).toBe('héllo');
    expect(text.headers['set-cookie']).toBe('a=1, b=2');
    expect((await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/latin1`, dispatcher: d })).body).toBe('café');
  });

  test('object bodies are sent as JSON with content-type', async () => {
    const res = await performHttpRequest({
      method: 'post',
      url: `http://127.0.0.1:${port}/echo`,
      headers: { 'X-Trace': 'abc', 'X-Num': 5, 'X-Skip': undefined },
      body: { hello: 'wörld', n: [1, 2] },
      dispatcher: local(),
    });
    const echoed = res.body as { method: string; headers: Record<string, string>; body: string };
    expect(echoed.method).toBe('POST');
    expect(echoed.headers['content-type']).toBe('application/json');
    expect(echoed.headers['x-trace']).toBe('abc');
    expect(echoed.headers['x-num']).toBe('5');
    expect(echoed.headers['x-skip']).toBeUndefined();
    expect(JSON.parse(echoed.body)).toEqual({ hello: 'wörld', n: [1, 2] });
  });

  test('a caller content-type wins; strings sent as is; arrays and numbers as JSON', async () => {
    const d = local();
    await performHttpRequest({
      method: 'PUT',
      url: `http://127.0.0.1:${port}/echo`,
      headers: { 'Content-Type': 'application/vnd.api+json' },
      body: { a: 1 },
      dispatcher: d,
    });
    expect(lastSeen.headers?.['content-type']).toBe('application/vnd.api+json');
    await performHttpRequest({ method: 'POST', url: `http://127.0.0.1:${port}/echo`, body: 'raw text', dispatcher: d });
    expect(lastSeen).toMatchObject({ body: 'raw text', headers: expect.objectContaining({ 'content-type': 'text/plain; charset=utf-8' }) });
    await performHttpRequest({ method: 'POST', url: `http://127.0.0.1:${port}/echo`, body: [1, 'x'], dispatcher: d });
    expect(lastSeen.body).toBe('[1,"x"]');
    await performHttpRequest({ method: 'POST', url: `http://127.0.0.1:${port}/echo`, body: 0, dispatcher: d });
    expect(lastSeen.body).toBe('0');
    await performHttpRequest({ method: 'POST', url: `http://127.0.0.1:${port}/echo`, body: false, dispatcher: d });
    expect(lastSeen.body).toBe('false');
    await performHttpRequest({ method: 'DELETE', url: `http://127.0.0.1:${port}/echo`, body: null, dispatcher: d });
    expect(lastSeen).toMatchObject({ method: 'DELETE', body: '' });
  });

  test('HEAD responses have no body', async () => {
    const res = await performHttpRequest({ method: 'HEAD', url: `http://127.0.0.1:${port}/json`, dispatcher: local() });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });

  test('redirects are not followed: the 3xx comes back as the status', async () => {
    const res = await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/redirect`, dispatcher: local() });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/json');
    expect(res.body).toBe('moved');
    expect(hits).toBe(1);
  });

  test('error statuses are answers, not errors', async () => {
    const d = local();
    for (const code of [400, 404, 429, 500, 503]) {
      expect((await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/status?code=${code}`, dispatcher: d })).status).toBe(
        code,
      );
    }
  });

  test('timeout waiting for headers', async () => {
    const started = Date.now();
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/slow`, timeoutMs: 200, dispatcher: local() }),
      'timeout',
    );
    expect(err.message).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('timeout while the body trickles in (the limit covers the whole exchange)', async () => {
    await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/slow-body`, timeoutMs: 200, dispatcher: local() }),
      'timeout',
    );
  });

  test('oversize bodies are cut off: declared length and streamed (chunked)', async () => {
    const d = local();
    const ok = await performHttpRequest({
      method: 'GET',
      url: `http://127.0.0.1:${port}/big?size=1000`,
      maxResponseBytes: 1000,
      dispatcher: d,
    });
    expect((ok.body as string).length).toBe(1000);
    const declared = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/big?size=1001`, maxResponseBytes: 1000, dispatcher: d }),
      'too_large',
    );
    expect(declared.message).toMatch(/larger than 1000 bytes/);
    await expectKind(
      performHttpRequest({
        method: 'GET',
        url: `http://127.0.0.1:${port}/big-chunked?size=300000`,
        maxResponseBytes: 100_000,
        dispatcher: d,
      }),
      'too_large',
    );
    // the default limit is 1 MiB
    await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/big-chunked?size=${1024 * 1024 + 1}`, dispatcher: d }),
      'too_large',
    );
    const exact = await performHttpRequest({
      method: 'GET',
      url: `http://127.0.0.1:${port}/big-chunked?size=${1024 * 1024}`,
      dispatcher: d,
    });
    expect((exact.body as string).length).toBe(1024 * 1024);
    // the connection pool is still usable afterwards
    expect((await performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/json`, dispatcher: d })).status).toBe(200);
  });

  test.each([
    ['ftp://example.com/x', /scheme ftp: is not allowed/],
    ['file:///etc/passwd', /scheme file: is not allowed/],
    ['javascript:alert(1)', /scheme javascript: is not allowed/],
    ['not a url', /not a valid absolute URL/],
    ['/relative/path', /not a valid absolute URL/],
    ['', /not a valid absolute URL/],
    ['https://user:pass@example.com/', /Credentials in the URL/],
  ])('refuses URL %j', async (url, message) => {
    const err = await expectKind(performHttpRequest({ method: 'GET', url, dispatcher: local() }), 'invalid_url');
    expect(err.message).toMatch(message);
  });

  test('refuses unusable methods and headers', async () => {
    const d = local();
    await expectKind(performHttpRequest({ method: 'CONNECT', url: `http://127.0.0.1:${port}/`, dispatcher: d }), 'invalid_request');
    await expectKind(performHttpRequest({ method: 'GE T', url: `http://127.0.0.1:${port}/`, dispatcher: d }), 'invalid_request');
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: { 'x-a': 'line\r\nInjected: 1' }, dispatcher: d }),
      'invalid_request',
    );
    expect(err.message).not.toMatch(/Injected/);
    expect(hits).toBe(0);
  });

  test('connection refused', async () => {
    const closed = http.createServer();
    const closedPort = await listen(closed);
    await new Promise((r) => closed.close(r));
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${closedPort}/`, dispatcher: local() }),
      'connection',
    );
    expect(err.causeCode).toBe('ECONNREFUSED');
    expect(err.message).toBe(`Connection refused by 127.0.0.1:${closedPort} (ECONNREFUSED)`);
  });

  test('unresolvable host → dns', async () => {
    const err = await expectKind(
      performHttpRequest({ method: 'GET', url: 'http://no-such-host.invalid/', dispatcher: dispatcher() }),
      'dns',
    );
    expect(err.message).toMatch(/Could not resolve host no-such-host\.invalid/);
  });

  test('error messages never contain the path or query (they may hold secrets)', async () => {
    const err = await failure(
      performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/slow?token=SECRET123`, timeoutMs: 100, dispatcher: local() }),
    );
    expect(err.message).not.toContain('SECRET123');
    expect(err.message).not.toContain('/slow');
    expect(JSON.stringify(err)).toBe(JSON.stringify({ kind: 'timeout', message: err.message }));
  });

  test('an external abort signal cancels the request', async () => {
    const controller = new AbortController();
    const p = performHttpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/slow`, dispatcher: local(), signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await expectKind(p, 'connection');
    expect(err.message).toMatch(/cancelled/);
  });

  describe('TLS', () => {
    test('an untrusted certificate → tls', async () => {
      const err = await expectKind(
        performHttpRequest({ method: 'GET', url: `https://127.0.0.1:${tlsPort}/json`, dispatcher: local() }),
        'tls',
      );
      expect(err.message).toMatch(/TLS error talking to 127\.0\.0\.1/);
    });

    test('trusted with tls.ca; the hostname is verified against the name, not the pinned address', async () => {
      const toLoopback: ResolveAll = async () => [{ address: '127.0.0.1', family: 4 }];
      const d = dispatcher(['127.0.0.0/8'], { tls: { ca: TEST_CERT }, resolveAll: toLoopback });
      const ok = await performHttpRequest({ method: 'GET', url: `https://127.0.0.1:${tlsPort}/json`, dispatcher: d });
      expect(ok.body).toEqual({ ok: true, list: [1, 2] });
      const named = await performHttpRequest({ method: 'GET', url: `https://svc-test.invalid:${tlsPort}/json`, dispatcher: d });
      expect(named.status).toBe(200);
      // Same address, but a name the certificate does not cover.
      await expectKind(performHttpRequest({ method: 'GET', url: `https://other.invalid:${tlsPort}/json`, dispatcher: d }), 'tls');
    });

    test('the SSRF guard also applies to https', async () => {
      const d = dispatcher([], { tls: { ca: TEST_CERT } });
      await expectKind(performHttpRequest({ method: 'GET', url: `https://127.0.0.1:${tlsPort}/json`, dispatcher: d }), 'blocked_address');
      await expectKind(performHttpRequest({ method: 'GET', url: `https://localhost:${tlsPort}/json`, dispatcher: d }), 'blocked_address');
    });
  });
});

describe('isJsonContentType', () => {
  test.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON', true],
    ['text/json', true],
    ['application/problem+json', true],
    ['application/vnd.api+json; charset=utf-8', true],
    ['application/jsonp', false],
    ['application/json-seq', false],
    ['text/plain', false],
    ['json', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (ct, expected) => {
    expect(isJsonContentType(ct)).toBe(expected);
  });
});
