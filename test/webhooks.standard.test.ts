import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { sealedContext } from '@svc/domain';
import { newWebhookSecret } from '@svc/signing';
import { greet, waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver, Received } from './helpers/httpsReceiver';
import { ROOT, spawnReady } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// Deliveries from the real stack, verified as receivers would: with the official Standard Webhooks
// libraries from npm and PyPI (pinned; the test setup installs the Python one), and with the
// receivers of docs/webhooks.md (Node, Python, Go), run as they are.

const { verifySvcWebhook } = require('../docs/examples/verify-webhook.js') as {
  verifySvcWebhook(raw: Buffer | string, header: unknown, secret: string, now?: number): boolean;
};

const EXAMPLES = path.join(ROOT, 'docs/examples/standard-webhooks');
const PYTHON = process.env.STANDARDWEBHOOKS_PYTHON!;

let stack: TestStack;
let tmp: string;
const receivers: HttpsReceiver[] = [];
const processes: Spawned[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-standard-webhooks-'));
  stack = await startStack({
    // Operator settings: this test's loopback receivers, over TLS (the helper's CA) or plain http.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_ALLOW_HTTP: 'true',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface Tenant {
  key: string;
  workflowId: string;
}

async function tenant(): Promise<Tenant> {
  const t = await stack.tenant();
  return { key: t.key, workflowId: (await stack.apply(t.workspaceId, greet)).id };
}

async function endpoint(t: Tenant, url: string): Promise<{ id: string; secret: string }> {
  const r = await stack.api('POST', '/api/v1/webhook-endpoints', { key: t.key, body: { url, event_types: ['run.succeeded'] } });
  expect(r.status).toBe(201);
  return r.body;
}

async function fire(t: Tenant): Promise<void> {
  const r = await stack.api('POST', `/api/v1/workflows/${t.workflowId}/runs`, { key: t.key, body: { input: { name: 'Ada' }, wait: true } });
  expect(r.body.status).toBe('succeeded');
}

async function receiver(): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver();
  receivers.push(r);
  return r;
}

/** The `n`-th request a receiver got, once it has arrived. */
async function nth(r: HttpsReceiver, n: number): Promise<Received> {
  await waitFor(
    async () => r.requests.length,
    (count) => count >= n,
  );
  return r.requests[n - 1];
}

const standardHeaders = (req: Received) => ({
  'webhook-id': String(req.headers['webhook-id']),
  'webhook-timestamp': String(req.headers['webhook-timestamp']),
  'webhook-signature': String(req.headers['webhook-signature']),
});

/** Verifies with the npm library: the parsed event, or the library's error message. */
function verifyWithNpm(req: Received, secret: string, opts: { raw?: boolean } = {}): unknown {
  try {
    return new Webhook(secret, opts.raw ? { format: 'raw' } : undefined).verify(req.raw.toString('utf8'), standardHeaders(req));
  } catch (err) {
    return (err as Error).message;
  }
}

// The PyPI library, given the secret as shown (a string) or, with `raw`, its bytes as the key.
const PY_VERIFY = `
import base64, json, sys
from standardwebhooks.webhooks import Webhook
job = json.load(sys.stdin)
out = []
for check in job["checks"]:
    try:
        key = check["secret"].encode() if check["raw"] else check["secret"]
        out.append(Webhook(key).verify(base64.b64decode(job["body"]), job["headers"])["id"])
    except Exception as err:
        out.append(type(err).__name__)
print(json.dumps(out))
`;

/** Verifies with the PyPI library, once per check: the event id, or the error's class name. */
function verifyWithPython(req: Received, checks: { secret: string; raw?: boolean }[]): string[] {
  const r = spawnSync(PYTHON, ['-c', PY_VERIFY], {
    input: JSON.stringify({
      body: req.raw.toString('base64'),
      headers: standardHeaders(req),
      checks: checks.map((c) => ({ secret: c.secret, raw: c.raw ?? false })),
    }),
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe('Standard Webhooks beside Svc-Signature', () => {
  it('signs every delivery both ways, at one instant; the official npm and PyPI libraries verify it with the secret as shown', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin);
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(ep.secret.slice(6), 'base64')).toHaveLength(32);
    await fire(t);

    const req = await nth(r, 1);
    expect(req.headers['webhook-id']).toBe(req.body.id);
    expect(req.headers['webhook-id']).toBe(req.headers['svc-event-id']);
    const t1 = /^t=(\d+),/.exec(String(req.headers['svc-signature']))![1];
    expect(req.headers['webhook-timestamp']).toBe(t1);
    expect(String(req.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    expect(verifyWithNpm(req, ep.secret)).toEqual(req.body);
    expect(verifyWithPython(req, [{ secret: ep.secret }, { secret: newWebhookSecret() }])).toEqual([
      req.body.id,
      'WebhookVerificationError',
    ]);
    expect(verifyWithNpm(req, newWebhookSecret())).toBe('No matching signature found');
    // The product's own signature verifies as before, with the same secret string.
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], ep.secret)).toBe(true);
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], newWebhookSecret())).toBe(false);
  });

  it('during a rotation a receiver holding the old or the new secret verifies; after it only the new one', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin);
    const rotated = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: t.key });
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.body.secret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    await fire(t);
    const during = await nth(r, 1);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [fresh, ep.secret]) {
      expect(verifyWithNpm(during, secret)).toEqual(during.body);
      expect(verifySvcWebhook(during.raw, during.headers['svc-signature'], secret)).toBe(true);
    }
    expect(verifyWithPython(during, [{ secret: fresh }, { secret: ep.secret }])).toEqual([during.body.id, during.body.id]);

    // The overlap ends (moved into the past rather than waited for).
    await stack.db.prisma.webhookEndpoint.update({ where: { id: ep.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1_000) } });
    await fire(t);
    const after = await nth(r, 2);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWithNpm(after, fresh)).toEqual(after.body);
    expect(verifyWithNpm(after, ep.secret)).toBe('No matching signature found');
    expect(verifyWithPython(after, [{ secret: fresh }, { secret: ep.secret }])).toEqual([after.body.id, 'WebhookVerificationError']);
  });

  it('a secret issued before keeps Svc-Signature as it was; Standard Webhooks keys it as written until it is rotated', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin);
    // A secret of the earlier form (`whsec_` + base64url of 32 bytes), as endpoints created before hold.
    const earlier = `whsec_${randomBytes(32).toString('base64url')}`;
    const row = await stack.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    await stack.db.prisma.webhookEndpoint.update({
      where: { id: ep.id },
      data: { secretEnc: stack.box.seal(earlier, sealedContext.endpointSigningSecret(row.workspaceId, ep.id)) },
    });

    await fire(t);
    const before = await nth(r, 1);
    expect(verifySvcWebhook(before.raw, before.headers['svc-signature'], earlier)).toBe(true);
    expect(verifyWithNpm(before, earlier, { raw: true })).toEqual(before.body);
    // Given as the secret string, the library fails: no match, or (with `-` or `_` in it) not base64 at all.
    const [raw, asString] = verifyWithPython(before, [{ secret: earlier, raw: true }, { secret: earlier }]);
    expect(raw).toBe(before.body.id);
    expect(['WebhookVerificationError', 'Error']).toContain(asString);
    // As the secret string, the libraries cannot use it: such a receiver passes the raw key, or rotates.
    expect(verifyWithNpm(before, earlier)).not.toEqual(before.body);

    const rotated = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: t.key });
    const fresh: string = rotated.body.secret;
    await fire(t);
    const during = await nth(r, 2);
    expect(verifyWithNpm(during, fresh)).toEqual(during.body);
    expect(verifyWithNpm(during, earlier, { raw: true })).toEqual(during.body);
    expect(verifyWithPython(during, [{ secret: fresh }, { secret: earlier, raw: true }])).toEqual([during.body.id, during.body.id]);
    expect(verifySvcWebhook(during.raw, during.headers['svc-signature'], earlier)).toBe(true);
    expect(verifySvcWebhook(during.raw, during.headers['svc-signature'], fresh)).toBe(true);
  });
});

describe('the receivers of docs/webhooks.md', () => {
  const goBinary = () => path.join(tmp, 'go-receiver');
  const commands: Record<string, () => [string, string[]]> = {
    node: () => [process.execPath, [path.join(EXAMPLES, 'node/receiver.js')]],
    python: () => [PYTHON, [path.join(EXAMPLES, 'python/receiver.py')]],
    go: () => [goBinary(), []],
  };

  beforeAll(() => {
    execFileSync('go', ['build', '-o', goBinary(), '.'], { cwd: path.join(EXAMPLES, 'go'), stdio: 'pipe' });
  }, 300_000);

  async function start(lang: string, secret: string): Promise<{ url: string; process: Spawned }> {
    const [command, args] = commands[lang]();
    const p = await spawnReady(`${lang} receiver`, command, args, { SVC_WEBHOOK_SECRET: secret, PORT: '0' }, /listening on \d+/);
    processes.push(p);
    return { url: `http://127.0.0.1:${/listening on (\d+)/.exec(p.output())![1]}/hooks/svc`, process: p };
  }

  it('each verifies a real delivery with the official library (2xx) and refuses one signed for another secret (400)', async () => {
    const t = await tenant();
    const langs = Object.keys(commands);
    const setups = await Promise.all(
      langs.flatMap((lang) =>
        [true, false].map(async (holdsTheSecret) => {
          // The URL is set once the receiver listens: it needs the secret first.
          const ep = await endpoint(t, 'http://127.0.0.1:9/');
          const rec = await start(lang, holdsTheSecret ? ep.secret : newWebhookSecret());
          const patched = await stack.api('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { key: t.key, body: { url: rec.url } });
          expect(patched.status).toBe(200);
          return { lang, holdsTheSecret, ep, rec };
        }),
      ),
    );
    await fire(t);

    for (const s of setups) {
      const [d] = await waitFor(
        async () => (await stack.api('GET', `/api/v1/webhook-endpoints/${s.ep.id}/deliveries`, { key: t.key })).body.data,
        (l: any[]) => l.length === 1 && l[0].attempt_count >= 1,
        20_000,
      );
      expect([s.lang, s.holdsTheSecret, d.last_response_status]).toEqual([s.lang, s.holdsTheSecret, s.holdsTheSecret ? 204 : 400]);
      if (s.holdsTheSecret) expect(s.rec.process.output()).toContain(`run.succeeded ${d.event_id}\n`);
      else expect(s.rec.process.output()).not.toContain('run.succeeded');
    }
  });
});
