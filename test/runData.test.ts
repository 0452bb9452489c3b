import { MAX_EVENT_BODY_BYTES, MAX_RUN_DATA_BYTES, REDACTED, setSecret } from '@svc/domain';
import { json, startEchoServer } from './helpers/echoServer';
import { waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver } from './helpers/httpsReceiver';
import { runToSettle } from './helpers/runs';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

/**
 * What a run stores and sends is data, bounded, and free of the secrets it used: bodies that are
 * not text are kept as bytes, a run's step outputs and its event bodies have caps, and a run opens
 * only the secrets its definition reads.
 */
let stack: TestStack;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let receiver: HttpsReceiver;

const TOKEN = 'tok-7f3a9c';
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', OUTBOUND_CA_FILE: testCertificate().certFile });
  echo = await startEchoServer((req, res) => {
    if (req.url === '/binary') {
      // Binary, with the request's credential inside it (a receiver that echoes what it got).
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.concat([PNG_HEAD, Buffer.from(String(req.headers.authorization)), Buffer.from([0xfe])]));
    } else if (req.url === '/nul-text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('before\u0000after');
    } else if (req.url === '/nul-json') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":"bad\\u0000input","k\\u0000":1}');
    } else json(res, 404, { error: 'unknown' });
  });
  receiver = await startHttpsReceiver();
});

afterAll(async () => {
  await echo?.close();
  await receiver?.close();
  await stack?.stop();
});

const requestsTo = (path: string) => echo.requests.filter((r) => r.url === path).length;

/** A one-step workflow calling the echo server's `path`, with a few tries allowed. */
const calling = (slug: string, path: string) => ({
  name: slug,
  slug,
  steps: [
    {
      key: 'call',
      type: 'http',
      method: 'GET',
      url: `${echo.url}${path}`,
      headers: { Authorization: 'Bearer {{ secrets.TOKEN }}' },
      retry: { max_attempts: 3, backoff: 'fixed', interval: '1s' },
    },
  ],
});

describe('bodies that are not text are data', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await stack.tenant();
    await setSecret(stack.db.prisma, stack.box, { workspaceId: tenant.workspaceId, name: 'TOKEN', value: TOKEN });
  });

  it('a binary 200 succeeds once, its body kept as base64 with the secret in it removed', async () => {
    const run = await runToSettle(stack, tenant, calling('binary', '/binary'));
    expect(run).toMatchObject({ status: 'succeeded', error: null });
    const body = run.steps[0].output.body;
    expect(body).toEqual({ encoding: 'base64', content_type: 'image/png', data: expect.any(String) });
    expect(Buffer.from(body.data, 'base64')).toEqual(Buffer.concat([PNG_HEAD, Buffer.from(`Bearer ${REDACTED}`), Buffer.from([0xfe])]));
    expect(requestsTo('/binary')).toBe(1);
    // The run reads back through the API as the wait answered it.
    const read = await stack.api('GET', `/api/v1/runs/${run.id}`, { key: tenant.key });
    expect(read.body.steps[0].output.body).toEqual(body);
  });

  it('text holding U+0000 succeeds once, kept as base64', async () => {
    const run = await runToSettle(stack, tenant, calling('nul-text', '/nul-text'));
    expect(run.status).toBe('succeeded');
    const body = run.steps[0].output.body;
    expect(body).toMatchObject({ encoding: 'base64', content_type: 'text/plain; charset=utf-8' });
    expect(Buffer.from(body.data, 'base64').toString('utf8')).toBe('before\u0000after');
    expect(requestsTo('/nul-text')).toBe(1);
  });

  it('a 400 whose JSON holds U+0000 fails its run at once, recorded once, its request sent once', async () => {
    const started = Date.now();
    const run = await runToSettle(stack, tenant, calling('nul-json', '/nul-json'));
    expect(run).toMatchObject({ status: 'failed', error: { code: 'http_status', step_key: 'call' } });
    expect(run.steps[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'http_status' } });
    expect(run.steps[0].output).toMatchObject({ status: 400, body: { encoding: 'base64', content_type: 'application/json' } });
    expect(Buffer.from(run.steps[0].output.body.data, 'base64').toString()).toBe('{"error":"bad\\u0000input","k\\u0000":1}');
    expect(requestsTo('/nul-json')).toBe(1);
    // Settled by the wait itself, not after retries of its bookkeeping.
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe("a run's step outputs are bounded together", () => {
  it('five 2 MB transforms: the fifth fails with run_data_too_large, nothing of it written', async () => {
    const tenant = await stack.tenant();
    const chunk = (c: string) => `$pad('', 2000000, '${c}')`;
    const run = await runToSettle(stack, tenant, {
      name: 'Heavy',
      slug: 'heavy',
      steps: [
        ...['a', 'b', 'c', 'd', 'e'].map((c) => ({ key: `s_${c}`, type: 'transform', expression: chunk(c) })),
        { key: 'after', type: 'transform', expression: "'not reached'" },
      ],
    });
    expect(run).toMatchObject({ status: 'failed', error: { code: 'run_data_too_large', step_key: 's_e' } });
    expect(run.steps.map((s: { status: string }) => s.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
      'failed',
      'skipped',
    ]);
    expect(run.steps[3].output).toHaveLength(2_000_000);
    expect(run.steps[4]).toMatchObject({ output: null, error: { code: 'run_data_too_large' } });
    const read = await stack.api('GET', `/api/v1/runs/${run.id}`, { key: tenant.key });
    const outputs = read.body.steps.reduce((sum: number, s: { output: unknown }) => sum + JSON.stringify(s.output).length, 0);
    expect(outputs).toBeLessThanOrEqual(MAX_RUN_DATA_BYTES);
    expect(outputs).toBeGreaterThan(4 * 2_000_000);
  });
});

describe('event bodies are bounded', () => {
  it('a run with a 1 MiB output raises run.succeeded with truncated: true in a body under 256 KiB; a small run, unchanged', async () => {
    const tenant = await stack.tenant();
    const endpoint = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: tenant.key,
      body: { url: `${receiver.origin}/events`, event_types: ['run.succeeded'] },
    });
    expect(endpoint.status).toBe(201);
    const large = await runToSettle(stack, tenant, {
      name: 'Large',
      slug: 'large',
      steps: [{ key: 'big', type: 'transform', expression: "$pad('', 1048576, 'y')" }],
    });
    const small = await runToSettle(
      stack,
      tenant,
      {
        name: 'Small',
        slug: 'small',
        steps: [{ key: 'tiny', type: 'transform', expression: "{ 'ok': input.n }" }],
      },
      { n: 1 },
    );
    expect([large.status, small.status]).toEqual(['succeeded', 'succeeded']);
    const delivered = (runId: string) => receiver.requests.find((r) => r.body?.data?.id === runId);
    await waitFor(
      async () => [delivered(large.id), delivered(small.id)],
      (d) => d.every(Boolean),
      60_000,
    );

    const bigEvent = delivered(large.id)!;
    expect(bigEvent.raw.length).toBeLessThanOrEqual(MAX_EVENT_BODY_BYTES);
    expect(bigEvent.body).toMatchObject({
      type: 'run.succeeded',
      data: { id: large.id, status: 'succeeded', truncated: true, input: null, output: null },
    });
    expect(bigEvent.body.data.steps).toEqual([expect.objectContaining({ key: 'big', status: 'succeeded', output: null })]);

    const smallEvent = delivered(small.id)!;
    expect(smallEvent.body.data).not.toHaveProperty('truncated');
    expect(smallEvent.body.data).toMatchObject({ id: small.id, input: { n: 1 }, output: { ok: 1 } });
    expect(smallEvent.body.data.steps).toEqual([expect.objectContaining({ key: 'tiny', output: { ok: 1 } })]);
  });
});

describe('a run opens only the secrets its definition reads', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await stack.tenant();
    await setSecret(stack.db.prisma, stack.box, { workspaceId: tenant.workspaceId, name: 'USED', value: 'used-5b1e' });
    await setSecret(stack.db.prisma, stack.box, { workspaceId: tenant.workspaceId, name: 'OTHER', value: 'other-9c2d' });
  });

  it('the secret it reads is redacted in its outputs; one it does not read is neither opened nor matched', async () => {
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'One secret',
        slug: 'one-secret',
        steps: [
          {
            key: 'use',
            type: 'transform',
            expression: "{ 'auth': 'Bearer ' & secrets.USED, 'echo': input.text, 'seen': $count($keys(steps)) }",
          },
        ],
      },
      { text: 'used-5b1e and other-9c2d' },
    );
    expect(run.status).toBe('succeeded');
    expect(run.steps[0].output).toEqual({ auth: `Bearer ${REDACTED}`, echo: `${REDACTED} and other-9c2d`, seen: 0 });
  });

  it('an expression that may read any secret opens them all, and all are redacted', async () => {
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'Any secret',
        slug: 'any-secret',
        steps: [{ key: 'use', type: 'transform', expression: "{ 'names': $keys($secrets), 'echo': input.text }" }],
      },
      { text: 'used-5b1e and other-9c2d' },
    );
    expect(run.status).toBe('succeeded');
    expect(run.steps[0].output).toEqual({ names: expect.arrayContaining(['USED', 'OTHER']), echo: `${REDACTED} and ${REDACTED}` });
  });
});
