import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { svcCli } from './helpers/cli';
import { greet, waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver, Received } from './helpers/httpsReceiver';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/** `svc endpoints list|create|rotate|disable` against the real stack, its deliveries verified as a receiver would. */

let stack: TestStack;
let receiver: HttpsReceiver;
let dataDir: string;
let key: string;
let workspaceId: string;
let workflowId: string;
// The operator's settings, as the CLI reads them: this test's loopback receiver is allowed.
const svc = (...args: string[]) => svcCli(args, { DATA_DIR: dataDir, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
  receiver = await startHttpsReceiver();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-endpoints-'));
  ({ key, workspaceId } = await stack.tenant());
  workflowId = (await stack.apply(workspaceId, greet)).id;
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function fire(): Promise<void> {
  const r = await stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body: { input: { name: 'Ada' }, wait: true } });
  expect(r.body.status).toBe('succeeded');
}

async function nth(n: number): Promise<Received> {
  await waitFor(
    async () => receiver.requests.length,
    (count) => count >= n,
  );
  return receiver.requests[n - 1];
}

const verifies = (req: Received, secret: string) => {
  try {
    new Webhook(secret).verify(req.raw.toString('utf8'), {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
};

describe('svc endpoints', () => {
  it('creates (the secret printed once), lists, rotates and disables an endpoint; its deliveries verify with the secrets printed', async () => {
    const url = `${receiver.origin}/hooks/svc`;
    const human = await svc('endpoints', 'create', '--workspace', workspaceId, '--url', url, '--events', 'run.succeeded', '--disabled');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^endpoint we_\w+ disabled \(Created disabled\): https:\/\/127\.0\.0\.1:\d+\/hooks\/svc \[run\.succeeded\]\n/,
    );
    expect(human.stdout).toMatch(/\nsigning secret: whsec_[A-Za-z0-9+/]{43}=\n\nThis is the only time the secret is shown\.\n$/);

    const created = await svc(
      'endpoints',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      url,
      '--events',
      'run.succeeded,run.failed',
      '--description',
      'ops',
      '--json',
    );
    expect(created.code).toBe(0);
    const ep = created.json();
    expect(ep).toMatchObject({ url, event_types: ['run.succeeded', 'run.failed'], description: 'ops', status: 'enabled' });
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const listed = await svc('endpoints', 'list', '--workspace', workspaceId, '--json');
    expect(listed.json().data.map((e: any) => [e.id, e.status])).toEqual([
      [ep.id, 'enabled'],
      [expect.stringMatching(/^we_/), 'disabled'],
    ]);
    expect(listed.stdout).not.toContain('whsec_');
    const page = await svc('endpoints', 'list', '--workspace', workspaceId, '--limit', '1', '--json');
    expect(page.json().data).toHaveLength(1);
    const rest = await svc('endpoints', 'list', '--workspace', workspaceId, '--limit', '1', '--cursor', page.json().next_cursor, '--json');
    expect(rest.json()).toMatchObject({ data: [{ status: 'disabled' }], next_cursor: null });

    await fire();
    expect(verifies(await nth(1), ep.secret)).toBe(true);

    const rotated = await svc('endpoints', 'rotate', ep.id, '--json');
    expect(rotated.code).toBe(0);
    const { secret, previous_secret_expires_at } = rotated.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Date.parse(previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    await fire();
    const during = await nth(2);
    expect([verifies(during, secret), verifies(during, ep.secret)]).toEqual([true, true]);

    const disabled = await svc('endpoints', 'disable', ep.id);
    expect([disabled.code, disabled.stdout]).toEqual([
      0,
      `endpoint ${ep.id} disabled (Disabled through the API): ${url} [run.succeeded, run.failed]\n`,
    ]);
    await fire();
    // A disabled endpoint gets no delivery: none is recorded with the event.
    const log = await stack.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`, { key });
    expect(log.body.data).toHaveLength(2);
  });

  it('refuses what the API refuses, with its codes', async () => {
    const http = await svc(
      'endpoints',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      'http://hooks.example.com/',
      '--events',
      'run.failed',
    );
    expect([http.code, http.stderr]).toEqual([1, expect.stringContaining('(url_not_allowed)')]);
    const missing = await svc('endpoints', 'rotate', 'we_nope');
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'error: Webhook endpoint we_nope not found (endpoint_not_found)']);
    expect((await svc('endpoints', 'disable', 'we_nope', '--json')).stderr).toContain('"code":"endpoint_not_found"');
  });
});
