import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { greet, waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver } from './helpers/httpsReceiver';
import { ROOT } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// A stack WITHOUT the operator's loopback allowance: what every API caller faces in production.
let stack: TestStack;
let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  stack = await startStack({
    OUTBOUND_ALLOW_CIDRS: '',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_RETRY_SCHEDULE: '200ms',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

describe('webhook URL safety', () => {
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.0.0.2:8443/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:7f00:1]/hook', 'loopback'],
    ['https://10.0.0.5/hook', 'private'],
    ['https://172.20.1.1/hook', 'private'],
    ['https://192.168.0.10/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata'],
    ['https://169.254.10.10/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://100.64.1.1/', 'cgnat'],
    ['https://239.1.1.1/', 'multicast'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://0.0.0.0/', 'unspecified'],
    ['http://hooks.example.com/', 'Only https'],
    ['https://user:pw@hooks.example.com/', 'Credentials'],
  ])('refuses %s at creation (422 url_not_allowed)', async (url, why) => {
    const t = await stack.tenant();
    const r = await stack.api('POST', '/api/v1/webhook-endpoints', { key: t.key, body: { url, event_types: ['run.succeeded'] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('url_not_allowed');
    expect(r.body.detail).toContain(why);
    expect(r.body.errors).toEqual([{ path: 'url', message: expect.any(String) }]);
    expect(await stack.db.prisma.webhookEndpoint.count({ where: { workspaceId: t.workspaceId } })).toBe(0);
  });

  it('refuses the same on update', async () => {
    const t = await stack.tenant();
    const created = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      body: { url: 'https://hooks.example.com/', event_types: ['run.succeeded'] },
    });
    expect(created.status).toBe(201);
    const r = await stack.api('PATCH', `/api/v1/webhook-endpoints/${created.body.id}`, {
      key: t.key,
      body: { url: 'https://169.254.169.254/' },
    });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('url_not_allowed');
    expect((await stack.api('GET', `/api/v1/webhook-endpoints/${created.body.id}`, { key: t.key })).body.url).toBe(
      'https://hooks.example.com/',
    );
  });

  it('checks resolved addresses at connect time: a host name resolving to 127.0.0.1 is never contacted', async () => {
    const t = await stack.tenant();
    const admin = `admin-${t.workspaceId}@example.test`;
    await stack.db.prisma.workspace.update({ where: { id: t.workspaceId }, data: { adminEmails: [admin] } });
    const wf = await stack.apply(t.workspaceId, greet);
    // `localhost` passes creation (it is a name) …
    const ep = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      body: { url: `https://localhost:${receiver.port}/hook`, event_types: ['run.succeeded'] },
    });
    expect(ep.status).toBe(201);
    const run = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: t.key, body: { input: { name: 'x' }, wait: true } });
    expect(run.body.status).toBe('succeeded');

    // … but every attempt is refused when connecting, and the delivery fails.
    const list = await waitFor(
      async () => (await stack.api('GET', `/api/v1/webhook-endpoints/${ep.body.id}/deliveries`, { key: t.key })).body.data,
      (l: any[]) => l.length === 1 && l[0].status === 'failed',
    );
    const d = (await stack.api('GET', `/api/v1/webhook-endpoints/${ep.body.id}/deliveries/${list[0].id}`, { key: t.key })).body;
    expect(d.attempts).toHaveLength(2);
    for (const a of d.attempts) expect(a).toMatchObject({ response_status: 0, error: 'blocked_address', response_body_excerpt: '' });
    expect(receiver.requests).toHaveLength(0);

    // The whole (compressed) window failed: the endpoint is disabled, and without SMTP_URL the
    // administrators' mail is kept in the outbox that `svc mail list` shows.
    const e = await waitFor(
      async () => (await stack.api('GET', `/api/v1/webhook-endpoints/${ep.body.id}`, { key: t.key })).body,
      (x: any) => x.status === 'disabled',
    );
    expect(e.disabled_reason).toContain('blocked_address');
    const mail = await waitFor(
      async () => {
        const r = spawnSync(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), 'mail', 'list', '--to', admin, '--json'], {
          env: { ...process.env, DATA_DIR: path.join(os.tmpdir(), 'svc-no-stack') },
          encoding: 'utf8',
        });
        expect(r.status).toBe(0);
        return JSON.parse(r.stdout).data as any[];
      },
      (l) => l.length === 1,
    );
    expect(mail[0]).toMatchObject({ to: [admin], subject: expect.stringContaining('Webhook endpoint disabled') });
    expect(mail[0].text).toContain(ep.body.id);
  });
});
