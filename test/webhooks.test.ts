import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyWorkflowAndAnnounce,
  deliveryWorkflowId,
  recordAttempt,
  recordEventAndDeliveries,
  sealedContext,
  setSecret,
  validateDefinition,
} from '@svc/domain';
import { createDeliveryStarter } from '@svc/temporal';
import { signWebhook } from '@svc/signing';
import { greet, statusCounts, waitFor } from './helpers/fixtures';
import { ok, startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver, Received, ReceiverHandler } from './helpers/httpsReceiver';
import { ROOT } from './helpers/processes';
import { startSmtpSink } from './helpers/smtpSink';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// The README's receiver example, executed as is.
const { verifySvcWebhook } = require('../docs/examples/verify-webhook.js') as {
  verifySvcWebhook(raw: Buffer | string, header: unknown, secret: string, now?: number): boolean;
};

/** 6 attempts over ~4.2 s instead of ~24 h. */
const SCHEDULE = '300ms,300ms,600ms,1s,2s';
const ATTEMPTS = 6;

let stack: TestStack;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
const receivers: HttpsReceiver[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await startStack({
    // Operator settings: the loopback receivers of this test and their self-signed CA.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_AFTER_MAX_MS: '5000',
    WEBHOOK_SECRET_OVERLAP_MS: '4000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'svc <alerts@svc.test>',
  });
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
  await smtp?.close();
});

async function receiver(handler = ok): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver(handler);
  receivers.push(r);
  return r;
}

/** A receiver's answer: `status` with a plain-text body. */
const answering =
  (status: number, body: string): ReceiverHandler =>
  (_q, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };

interface Tenant {
  workspaceId: string;
  key: string;
  workflowId: string;
}

async function tenant(admins: string[] = []): Promise<Tenant> {
  const t = await stack.tenant();
  await stack.db.prisma.workspace.update({ where: { id: t.workspaceId }, data: { adminEmails: admins } });
  const wf = await stack.apply(t.workspaceId, greet);
  return { ...t, workflowId: wf.id };
}

async function endpoint(t: Tenant, url: string, eventTypes = ['run.succeeded']): Promise<{ id: string; secret: string }> {
  const r = await stack.api('POST', '/api/v1/webhook-endpoints', { key: t.key, body: { url, event_types: eventTypes } });
  expect(r.status).toBe(201);
  return r.body;
}

/** Runs the greet workflow to the end: raises run.succeeded. */
async function fire(t: Tenant): Promise<string> {
  const r = await stack.api('POST', `/api/v1/workflows/${t.workflowId}/runs`, { key: t.key, body: { input: { name: 'Ada' }, wait: true } });
  expect(r.status).toBe(201);
  expect(r.body.status).toBe('succeeded');
  return r.body.id;
}

async function deliveriesOf(t: Tenant, endpointId: string, query = '') {
  const r = await stack.api('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries${query}`, { key: t.key });
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

async function deliveryOf(t: Tenant, endpointId: string, deliveryId: string) {
  const r = await stack.api('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries/${deliveryId}`, { key: t.key });
  expect(r.status).toBe(200);
  return r.body;
}

/** The single delivery of an endpoint once `ok` holds for it. */
async function waitForDelivery(t: Tenant, endpointId: string, ok: (d: any) => boolean, timeoutMs = 20_000) {
  const list = await waitFor(
    () => deliveriesOf(t, endpointId),
    (l) => l.length > 0 && ok(l[0]),
    timeoutMs,
    100,
  );
  return deliveryOf(t, endpointId, list[0].id);
}

async function getEndpoint(t: Tenant, id: string) {
  return (await stack.api('GET', `/api/v1/webhook-endpoints/${id}`, { key: t.key })).body;
}

function v1s(req: Received): string[] {
  return String(req.headers['svc-signature'])
    .split(',')
    .filter((p) => p.startsWith('v1='))
    .map((p) => p.slice(3));
}

describe('webhook endpoints API', () => {
  it('creates, lists, reads, updates and deletes endpoints; the secret is shown only at creation', async () => {
    const t = await tenant();
    const created = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      body: { url: 'https://hooks.example.com/svc', event_types: ['run.succeeded', 'run.failed'], description: 'ops' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/webhook-endpoints/${created.body.id}`);
    expect(created.body).toMatchObject({
      url: 'https://hooks.example.com/svc',
      event_types: ['run.succeeded', 'run.failed'],
      description: 'ops',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(created.body.id).toMatch(/^we_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // base64 of 32 key bytes (Standard Webhooks)
    const id = created.body.id;

    // Stored sealed, never in clear.
    const row = await stack.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.secretEnc).not.toContain(created.body.secret);
    expect(stack.box.open(row.secretEnc, sealedContext.endpointSigningSecret(row.workspaceId, id))).toBe(created.body.secret);

    const read = await stack.api('GET', `/api/v1/webhook-endpoints/${id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(Object.keys(read.body).sort()).toEqual(
      ['id', 'url', 'event_types', 'description', 'status', 'disabled_reason', 'created_at', 'updated_at'].sort(),
    );

    await endpoint(t, 'https://hooks.example.com/second');
    const page1 = await stack.api('GET', '/api/v1/webhook-endpoints?limit=1', { key: t.key });
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0].url).toBe('https://hooks.example.com/second'); // newest first
    const page2 = await stack.api('GET', `/api/v1/webhook-endpoints?limit=1&cursor=${page1.body.next_cursor}`, { key: t.key });
    expect(page2.body.data.map((e: any) => e.id)).toEqual([id]);
    expect(page2.body.next_cursor).toBeNull();

    const patched = await stack.api('PATCH', `/api/v1/webhook-endpoints/${id}`, {
      key: t.key,
      body: { url: 'https://hooks.example.com/v2', event_types: ['workflow.updated'], description: 'changed' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: 'https://hooks.example.com/v2', event_types: ['workflow.updated'], description: 'changed' });

    const disabled = await stack.api('PATCH', `/api/v1/webhook-endpoints/${id}`, { key: t.key, body: { enabled: false } });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled through the API' });
    const enabled = await stack.api('PATCH', `/api/v1/webhook-endpoints/${id}`, { key: t.key, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });

    const del = await stack.api('DELETE', `/api/v1/webhook-endpoints/${id}`, { key: t.key });
    expect(del.status).toBe(204);
    const gone = await stack.api('GET', `/api/v1/webhook-endpoints/${id}`, { key: t.key });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('endpoint_not_found');
  });

  it('validates bodies, enforces scopes and hides other workspaces', async () => {
    const t = await tenant();
    const post = (body: unknown, key = t.key) => stack.api('POST', '/api/v1/webhook-endpoints', { key, body });

    const unknownField = await post({ url: 'https://a.example.com/', event_types: ['run.succeeded'], secret: 'mine' });
    expect(unknownField.status).toBe(422);
    expect(unknownField.body.code).toBe('validation_failed');
    expect((await post({ url: 'https://a.example.com/', event_types: [] })).status).toBe(422);
    const badType = await post({ url: 'https://a.example.com/', event_types: ['run.exploded'] });
    expect(badType.status).toBe(422);
    expect(badType.body.errors[0].path).toMatch(/^event_types/);
    const notHttps = await post({ url: 'http://a.example.com/', event_types: ['run.succeeded'] });
    expect(notHttps.status).toBe(422);
    expect(notHttps.body.code).toBe('url_not_allowed');
    const raw = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      rawBody: 'url=https://a.example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(raw.status).toBe(415);

    const reader = await stack.tenant({ scopes: ['webhooks:read'] });
    const refused = await post({ url: 'https://a.example.com/', event_types: ['run.succeeded'] }, reader.key);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect(refused.body.detail).toContain('webhooks:write');
    const noRead = await stack.tenant({ scopes: ['runs:read'] });
    expect((await stack.api('GET', '/api/v1/webhook-endpoints', { key: noRead.key })).status).toBe(403);

    const mine = await endpoint(t, 'https://a.example.com/');
    const other = await stack.tenant();
    for (const [method, p] of [
      ['GET', `/api/v1/webhook-endpoints/${mine.id}`],
      ['PATCH', `/api/v1/webhook-endpoints/${mine.id}`],
      ['DELETE', `/api/v1/webhook-endpoints/${mine.id}`],
      ['POST', `/api/v1/webhook-endpoints/${mine.id}/rotate-secret`],
      ['GET', `/api/v1/webhook-endpoints/${mine.id}/deliveries`],
    ] as const) {
      const r = await stack.api(method, p, { key: other.key, ...(method === 'PATCH' ? { body: { description: 'x' } } : {}) });
      expect([method, p, r.status, r.body.code]).toEqual([method, p, 404, 'endpoint_not_found']);
    }
    expect((await stack.api('GET', '/api/v1/webhook-endpoints', { key: other.key })).body.data).toEqual([]);
  });
});

describe('delivery', () => {
  it('signs as documented; the documented example verifies it; the payload is the run with steps, secrets removed', async () => {
    const t = await tenant();
    await setSecret(stack.db.prisma, stack.box, { workspaceId: t.workspaceId, name: 'TOKEN', value: 'tok-s3cr3t-value' });
    const wf = await stack.apply(t.workspaceId, {
      ...greet,
      slug: 'greet-secret',
      steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name, 'auth': secrets.TOKEN }" }],
    });
    const r = await receiver();
    const ep = await endpoint(t, `${r.origin}/hooks/svc?src=test`);
    const runId = await fire({ ...t, workflowId: wf.id });

    const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hooks/svc?src=test');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^Svc-Webhooks\//);
    expect(req.headers['svc-event-type']).toBe('run.succeeded');
    expect(req.headers['svc-event-id']).toBe(req.body.id);
    expect(req.headers['svc-delivery-id']).toBe(d.id);
    expect(req.headers['svc-delivery-attempt']).toBe('1');
    expect(String(req.headers['svc-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    // The README example accepts it, and refuses a wrong secret, a changed body and a stale timestamp.
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], ep.secret)).toBe(true);
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], 'whsec_wrong')).toBe(false);
    expect(verifySvcWebhook(Buffer.concat([req.raw, Buffer.from(' ')]), req.headers['svc-signature'], ep.secret)).toBe(false);
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], ep.secret, Math.floor(Date.now() / 1000) + 301)).toBe(false);
    expect(verifySvcWebhook(req.raw, undefined, ep.secret)).toBe(false);

    expect(req.body).toMatchObject({ type: 'run.succeeded', workspace_id: t.workspaceId, data: { id: runId, status: 'succeeded' } });
    expect(req.body.id).toMatch(/^evt_/);
    expect(req.body.data.steps).toEqual([expect.objectContaining({ key: 'shape', status: 'succeeded' })]);
    expect(req.body.data.steps[0].output.auth).toBe('[REDACTED]');
    expect(req.raw.toString()).not.toContain('tok-s3cr3t-value');

    // The delivery log.
    expect(d).toMatchObject({
      event_id: req.body.id,
      event_type: 'run.succeeded',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      last_response_status: 200,
    });
    expect(d.attempts).toEqual([
      {
        number: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        response_status: 200,
        response_body_excerpt: '{"received":true}',
        error: null,
      },
    ]);
    expect(await deliveriesOf(t, ep.id, '?status=succeeded&event_type=run.succeeded')).toHaveLength(1);
    expect(await deliveriesOf(t, ep.id, '?status=failed')).toHaveLength(0);
    expect(await deliveriesOf(t, ep.id, '?event_type=run.failed')).toHaveLength(0);
    const bad = await stack.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?status=lost`, { key: t.key });
    expect(bad.status).toBe(400);

    // An endpoint subscribed to other kinds gets nothing; a second event is a second delivery, once.
    const other = await receiver();
    await endpoint(t, other.origin, ['run.failed']);
    await fire({ ...t, workflowId: wf.id });
    await waitFor(
      () => deliveriesOf(t, ep.id, '?status=succeeded'),
      (l) => l.length === 2,
    );
    expect(other.requests).toHaveLength(0);
    expect(new Set(r.requests.map((q) => q.body.id)).size).toBe(2);
  });

  it('keeps retrying a receiver that is down, and delivers once it is up; every attempt is logged', async () => {
    const t = await tenant();
    const r = await receiver();
    await r.down();
    const ep = await endpoint(t, `${r.origin}/in`);
    await fire(t);

    const failing = await waitForDelivery(t, ep.id, (x) => x.attempt_count >= 3);
    expect(failing.status).toBe('pending');
    expect(failing.next_attempt_at).not.toBeNull();
    expect(failing.attempts.slice(0, 3)).toEqual(
      [1, 2, 3].map((n) => expect.objectContaining({ number: n, response_status: 0, error: 'connection', response_body_excerpt: '' })),
    );

    await r.up();
    const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    const last = d.attempts[d.attempts.length - 1];
    expect(last).toMatchObject({ response_status: 200, error: null });
    expect(d.attempt_count).toBe(d.attempts.length);
    expect(d.attempts.map((a: any) => a.number)).toEqual(d.attempts.map((_: unknown, i: number) => i + 1));
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0].headers['svc-delivery-attempt']).toBe(String(last.number));
    // Attempts follow the (jittered) schedule: 300 ms, 300 ms, 600 ms…
    const gap = Date.parse(d.attempts[1].started_at) - Date.parse(d.attempts[0].started_at);
    expect(gap).toBeGreaterThanOrEqual(250);
  });

  it('signs with both secrets during a rotation overlap (newest first), then with the new one only', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin);
    const rotated = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: t.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    const expiresIn = Date.parse(rotated.body.previous_secret_expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(2_000); // WEBHOOK_SECRET_OVERLAP_MS=4000 here; 24 h by default
    expect(expiresIn).toBeLessThanOrEqual(4_000);

    await fire(t);
    await waitFor(
      async () => r.requests.length,
      (n) => n === 1,
    );
    const during = r.requests[0];
    const t1 = Number(/^t=(\d+)/.exec(String(during.headers['svc-signature']))![1]);
    expect(v1s(during)).toHaveLength(2);
    expect(String(during.headers['svc-signature'])).toBe(
      signWebhook({ secrets: [rotated.body.secret, ep.secret], timestamp: t1, body: during.raw }),
    );
    expect(verifySvcWebhook(during.raw, during.headers['svc-signature'], rotated.body.secret)).toBe(true);
    expect(verifySvcWebhook(during.raw, during.headers['svc-signature'], ep.secret)).toBe(true);

    // The overlap ends (moved into the past rather than waited for).
    await stack.db.prisma.webhookEndpoint.update({ where: { id: ep.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1_000) } });
    await fire(t);
    await waitFor(
      async () => r.requests.length,
      (n) => n === 2,
    );
    const after = r.requests[1];
    expect(v1s(after)).toHaveLength(1);
    expect(verifySvcWebhook(after.raw, after.headers['svc-signature'], rotated.body.secret)).toBe(true);
    expect(verifySvcWebhook(after.raw, after.headers['svc-signature'], ep.secret)).toBe(false);
  });

  it('disables an endpoint at once on 410, emails the admins, delivers nothing more until re-enabled', async () => {
    const t = await tenant(['owner@acme.test', 'ops@acme.test']);
    const r = await receiver(answering(410, 'gone for good'));
    const ep = await endpoint(t, r.origin);
    await fire(t);

    const d = await waitForDelivery(t, ep.id, (x) => x.status === 'failed');
    expect(d.attempt_count).toBe(1);
    expect(d.attempts[0]).toMatchObject({ response_status: 410, error: 'http_error', response_body_excerpt: 'gone for good' });
    const e = await getEndpoint(t, ep.id);
    expect(e.status).toBe('disabled');
    expect(e.disabled_reason).toMatch(/410/);

    const mail = await waitFor(
      async () => smtp.messages.filter((m) => m.raw.includes(ep.id)),
      (l) => l.length === 1,
    );
    expect(mail[0].to.sort()).toEqual(['ops@acme.test', 'owner@acme.test']);
    expect(mail[0].from).toBe('alerts@svc.test');
    expect(mail[0].subject).toContain('Webhook endpoint disabled');
    expect(mail[0].raw).toContain('410');

    // Disabled: no new delivery, no request, and a retry is refused until it is re-enabled. An
    // enabled endpoint of the same workspace is the positive signal: once it has the event, the
    // disabled one would have its delivery too (both are recorded with the event, at once).
    const witness = await receiver();
    await endpoint(t, witness.origin);
    await fire(t);
    await waitFor(
      async () => witness.requests.length,
      (n) => n === 1,
    );
    expect(await deliveriesOf(t, ep.id)).toHaveLength(1);
    expect(r.requests).toHaveLength(1);
    const refused = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, { key: t.key });
    expect(refused.status).toBe(409);

    r.setHandler(ok);
    const reenabled = await stack.api('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { key: t.key, body: { enabled: true } });
    expect(reenabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
    await fire(t);
    await waitFor(
      () => deliveriesOf(t, ep.id, '?status=succeeded'),
      (l) => l.length === 1,
    );
    expect(r.requests).toHaveLength(2);
  });

  it('disables an endpoint whose deliveries fail through a whole retry window, stopping its pending deliveries, and emails the admins', async () => {
    const t = await tenant(['admin@failing.test']);
    const r = await receiver((_q, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'boom', pad: 'x'.repeat(6000) }));
    });
    const ep = await endpoint(t, r.origin);
    await fire(t);
    await fire(t);

    const list = await waitFor(
      () => deliveriesOf(t, ep.id),
      (l) => l.length === 2 && l.every((x) => x.status === 'failed'),
      30_000,
    );
    const details = await Promise.all(list.map((x) => deliveryOf(t, ep.id, x.id)));
    const exhausted = details.find((x) => x.attempt_count === ATTEMPTS)!;
    expect(exhausted).toBeDefined();
    expect(exhausted.attempts.map((a: any) => [a.number, a.response_status, a.error])).toEqual(
      Array.from({ length: ATTEMPTS }, (_, i) => [i + 1, 500, 'http_error']),
    );
    expect(Buffer.byteLength(exhausted.attempts[0].response_body_excerpt)).toBe(4096);
    expect(exhausted.attempts[0].response_body_excerpt.startsWith('{"error":"boom"')).toBe(true);

    const e = await getEndpoint(t, ep.id);
    expect(e.status).toBe('disabled');
    expect(e.disabled_reason).toMatch(/whole retry window/);
    const mail = await waitFor(
      async () => smtp.messages.filter((m) => m.raw.includes(ep.id)),
      (l) => l.length === 1,
    );
    expect(mail[0].to).toEqual(['admin@failing.test']);
    expect(mail[0].raw).toContain('whole retry window');

    // Nothing more is sent once it is disabled: every delivery workflow has ended.
    await Promise.all(list.map((x) => stack.temporal.workflow.getHandle(x.id).result()));
    const sent = r.requests.length;
    expect(sent).toBeLessThanOrEqual(2 * ATTEMPTS);
    const ended = await Promise.all(list.map(async (x) => (await stack.temporal.workflow.getHandle(x.id).describe()).status.name));
    expect(ended).toEqual(['COMPLETED', 'COMPLETED']);
    expect(r.requests.length).toBe(sent);
  });

  it('never follows a redirect (a failed attempt)', async () => {
    const t = await tenant();
    const r = await receiver((q, res) => {
      if (q.path === '/elsewhere') return ok(q, res);
      res.writeHead(302, { location: `https://127.0.0.1:${r.port}/elsewhere` });
      res.end();
    });
    const ep = await endpoint(t, `${r.origin}/start`);
    await fire(t);
    const d = await waitForDelivery(t, ep.id, (x) => x.attempt_count >= 2);
    expect(d.attempts[0]).toMatchObject({ response_status: 302, error: 'redirect' });
    expect(d.status).not.toBe('succeeded');
    expect(r.requests.every((q) => q.path === '/start')).toBe(true);
    await stack.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`, { key: t.key });
  });

  it('a slow endpoint does not delay a healthy one (attempts time out, 2 s here, 15 s by default)', async () => {
    const t = await tenant();
    const slow = await receiver(() => {
      // never answers
    });
    const healthy = await receiver();
    const slowEp = await endpoint(t, slow.origin);
    const healthyEp = await endpoint(t, healthy.origin);
    const before = Date.now();
    await fire(t);

    await waitForDelivery(t, healthyEp.id, (x) => x.status === 'succeeded', 10_000);
    expect(healthy.requests[0].at - before).toBeLessThan(1_500);
    const s = await waitForDelivery(t, slowEp.id, (x) => x.attempt_count >= 1, 10_000);
    expect(s.attempts[0]).toMatchObject({ response_status: 0, error: 'timeout' });
    expect(s.attempts[0].duration_ms).toBeGreaterThanOrEqual(1_900);
    expect(healthy.requests[0].at).toBeLessThan(Date.parse(s.attempts[0].started_at) + s.attempts[0].duration_ms);
    await stack.api('DELETE', `/api/v1/webhook-endpoints/${slowEp.id}`, { key: t.key });
  });

  it('honours Retry-After on 503 (within bounds)', async () => {
    const t = await tenant();
    let n = 0;
    const r = await receiver((q, res) => {
      if (n++ === 0) {
        res.writeHead(503, { 'retry-after': '2' });
        return res.end('busy');
      }
      ok(q, res);
    });
    const ep = await endpoint(t, r.origin);
    await fire(t);
    const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    expect(d.attempts.map((a: any) => a.response_status)).toEqual([503, 200]);
    const gap = Date.parse(d.attempts[1].started_at) - Date.parse(d.attempts[0].started_at);
    expect(gap).toBeGreaterThanOrEqual(1_900); // the schedule alone would retry after ~300 ms
  });

  it('sends a failed delivery again on a manual retry', async () => {
    const t = await tenant(['admin@retry.test']);
    let failEvent: string | undefined;
    const r = await receiver((q, res) => {
      failEvent ??= q.body.id;
      if (q.body.id === failEvent) {
        res.writeHead(500);
        return res.end('not now');
      }
      ok(q, res);
    });
    const ep = await endpoint(t, r.origin);
    await fire(t); // fails through its whole window…
    await waitFor(
      async () => r.requests.length,
      (n) => n >= 1,
    );
    await fire(t); // …while another delivery succeeds, so the endpoint stays enabled
    const failed = await waitFor(
      () => deliveriesOf(t, ep.id, '?status=failed'),
      (l) => l.length === 1,
      20_000,
    );
    expect(failed[0].attempt_count).toBe(ATTEMPTS);
    expect((await getEndpoint(t, ep.id)).status).toBe('enabled');

    failEvent = 'none';
    const retried = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/${failed[0].id}/retry`, { key: t.key });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed[0].id, status: 'pending' });
    const d = await waitFor(
      () => deliveryOf(t, ep.id, failed[0].id),
      (x) => x.status === 'succeeded',
    );
    expect(d.attempt_count).toBe(ATTEMPTS + 1);
    expect(d.attempts[ATTEMPTS]).toMatchObject({ number: ATTEMPTS + 1, response_status: 200, error: null });
    const last = r.requests[r.requests.length - 1];
    expect(last.headers['svc-delivery-id']).toBe(failed[0].id);
    expect(last.headers['svc-delivery-attempt']).toBe(String(ATTEMPTS + 1));
    expect(last.body.id).toBe(d.event_id); // the same event, the same id
    expect(verifySvcWebhook(last.raw, last.headers['svc-signature'], ep.secret)).toBe(true);

    const missing = await stack.api('POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/dlv_nope/retry`, { key: t.key });
    expect(missing.status).toBe(404);
  });
});

/** A delivery starter on the worker's client, as the worker's main.ts makes it. */
function deliveryStarter() {
  return createDeliveryStarter({
    client: stack.workerClient,
    db: stack.db.sql,
    taskQueue: stack.config.TEMPORAL_DELIVERY_TASK_QUEUE,
    scheduleMs: [300],
    attemptTimeoutMs: 2_000,
    eager: true,
  });
}

describe('fan-out (the delivery outbox)', () => {
  it('starts a delivery as an ordinary workflow when no Worker of this process can take its first task', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin, ['review.decided']);
    const args = {
      workspaceId: t.workspaceId,
      type: 'review.decided' as const,
      dedupeKey: `test:${t.workspaceId}:queued`,
      data: { ok: 2 },
    };
    const { deliveries } = await recordEventAndDeliveries(stack.db.prisma, args, { dispatchDelayMs: 30_000 });
    // Eager start asked for with no Worker polling: the start still succeeds, as a plain one.
    const started = await stack.withoutWorker(() => deliveryStarter().startAll(deliveries));
    expect(started).toEqual({ started: 1, eager: 0, left: [] });
    // The task waited in the queue for the Worker that came back.
    await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    expect(r.requests).toHaveLength(1);
  });

  it('records one delivery per (event, endpoint) and starts one workflow, however often it is published', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin, ['review.decided']);
    const off = await endpoint(t, r.origin, ['review.decided']);
    await stack.api('PATCH', `/api/v1/webhook-endpoints/${off.id}`, { key: t.key, body: { enabled: false } });
    const starter = deliveryStarter();
    const args = { workspaceId: t.workspaceId, type: 'review.decided' as const, dedupeKey: `test:${t.workspaceId}:once`, data: { ok: 1 } };
    // A publisher that starts its workflows at once, retried as an activity would be.
    const first = await recordEventAndDeliveries(stack.db.prisma, args, { dispatchDelayMs: 30_000 });
    expect(first.created).toBe(true);
    expect(first.deliveries).toHaveLength(1); // the disabled endpoint gets nothing
    // This process's delivery Worker has free slots: the first task comes back with the start.
    expect(await starter.startAll(first.deliveries)).toEqual({ started: 1, eager: 1, left: [] });
    // A repeated start attaches to the first.
    expect(await starter.startAll(first.deliveries)).toEqual({ started: 1, eager: 0, left: [] });
    const again = await recordEventAndDeliveries(stack.db.prisma, args, { dispatchDelayMs: 30_000 });
    expect(again).toMatchObject({ created: false, deliveries: [] });
    expect(again.eventId).toBe(first.eventId);

    await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    // The one execution has ended: nothing more can be sent.
    await stack.temporal.workflow.getHandle(first.deliveries[0].id).result();
    expect(r.requests).toHaveLength(1);
    expect(await stack.db.prisma.webhookDelivery.count({ where: { eventId: first.eventId } })).toBe(1);
    const runs = [];
    for await (const w of stack.temporal.workflow.list({ query: `WorkflowId = '${first.deliveries[0].id}'` })) runs.push(w);
    expect(runs).toHaveLength(1);
  });

  it("writes the event and its deliveries in the caller's transaction: together or not at all; the relay starts them", async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin, ['workflow.updated']);
    const args = { workspaceId: t.workspaceId, type: 'workflow.updated' as const, dedupeKey: `test:${t.workspaceId}:tx`, data: { v: 1 } };
    await expect(
      stack.db.prisma.$transaction(async (tx) => {
        await recordEventAndDeliveries(tx, args);
        throw new Error('the caller fails after publishing');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await stack.db.prisma.event.count({ where: { dedupeKey: args.dedupeKey } })).toBe(0);
    expect(await deliveriesOf(t, ep.id)).toHaveLength(0);

    const published = await stack.db.prisma.$transaction((tx) => recordEventAndDeliveries(tx, args));
    expect(published.deliveries).toHaveLength(1);
    // Nobody starts this workflow but the workers' outbox relay.
    await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    expect(r.requests[0].body).toMatchObject({ id: published.eventId, type: 'workflow.updated', data: { v: 1 } });
  });
});

describe('recording an attempt', () => {
  it('records a success once, however often it is recorded, and leaves a superseded generation to the full check', async () => {
    const t = await tenant();
    const ep = await endpoint(t, 'https://hooks.example.test/svc', ['workflow.updated']);
    const args = { workspaceId: t.workspaceId, type: 'workflow.updated' as const, dedupeKey: `test:${t.workspaceId}:record`, data: {} };
    // No workflow delivers it (the relay waits an hour): only the records below change it.
    const [d] = (await recordEventAndDeliveries(stack.db.prisma, args, { dispatchDelayMs: 3_600_000 })).deliveries;
    const attempt = {
      deliveryId: d.id,
      generation: d.generation,
      attemptKey: `${d.id}:0`,
      startedAt: '2026-11-24T10:00:00.000Z',
      durationMs: 12.4,
      responseStatus: 204,
      responseBodyExcerpt: '',
      error: null,
      retryAfterMs: null,
      plannedDelayMs: 5_000,
      retryAfterMaxMs: 60_000,
      windowLabel: '24h',
    };
    const db = { prisma: stack.db.prisma, sql: stack.db.sql };
    const done = { next: 'done', status: 'succeeded', endpointId: ep.id, endpointDisabled: false };
    expect(await recordAttempt(db, attempt)).toEqual(done);
    // An activity retry records the same attempt again: the same answer, nothing more written.
    expect(await recordAttempt(db, attempt)).toEqual(done);
    expect(await deliveryOf(t, ep.id, d.id)).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      last_response_status: 204,
      next_attempt_at: null,
      attempts: [{ number: 1, response_status: 204, duration_ms: 12, error: null }],
    });
    const row = await stack.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(row.lastSuccessAt?.toISOString()).toBe('2026-11-24T10:00:00.012Z');
    // A success of an older generation (a manual retry began meanwhile) is logged, and reported superseded.
    await stack.db.prisma.webhookDelivery.update({ where: { id: d.id }, data: { generation: d.generation + 1, status: 'pending' } });
    expect(await recordAttempt(db, { ...attempt, attemptKey: `${d.id}:old` })).toMatchObject({ next: 'done', status: 'superseded' });
    expect((await deliveryOf(t, ep.id, d.id)).attempts).toHaveLength(2);
  });
});

describe('an attempt and its log entry', () => {
  const historyOf = async (deliveryId: string) =>
    (await stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId, 0)).fetchHistory()).events!;
  /** Local activities run (each records a marker). */
  const markers = (events: Awaited<ReturnType<typeof historyOf>>) => events.filter((e) => e.markerRecordedEventAttributes);

  it('a delivered attempt is one workflow task and one local activity, with no activity task', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin);
    await fire(t);
    const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
    const events = await historyOf(d.id);
    expect(events[0].workflowExecutionStartedEventAttributes!.workflowType!.name).toBe('deliveryWorkflow');
    expect(events.filter((e) => e.workflowTaskStartedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    expect(markers(events)).toHaveLength(1);
    expect(d.attempts).toEqual([expect.objectContaining({ number: 1, response_status: 200, error: null })]);
  });

  it('an attempt whose log entry could not be written is written by the workflow, with its answer, and not sent again', async () => {
    // The first write of an attempt answered 299 fails, as it would in a database outage; a
    // sequence, since the failing transaction rolls back anything else it would record.
    await stack.db.prisma.$executeRawUnsafe(`CREATE SEQUENCE IF NOT EXISTS test_attempt_writes`);
    await stack.db.prisma.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION test_fail_first_299() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.response_status = 299 AND nextval('test_attempt_writes') = 1 THEN
          RAISE EXCEPTION 'the delivery log is not writable';
        END IF;
        RETURN NEW;
      END $$`);
    await stack.db.prisma.$executeRawUnsafe(`
      CREATE OR REPLACE TRIGGER test_fail_first_299 BEFORE INSERT ON webhook_delivery_attempts
      FOR EACH ROW EXECUTE FUNCTION test_fail_first_299()`);
    try {
      const t = await tenant();
      const r = await receiver(answering(299, 'taken'));
      const ep = await endpoint(t, r.origin);
      await fire(t);
      const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
      expect(d.attempts).toEqual([
        expect.objectContaining({ number: 1, response_status: 299, error: null, response_body_excerpt: 'taken' }),
      ]);
      expect(r.requests).toHaveLength(1);
      // The attempt's own write failed once, then the workflow's succeeded.
      const [{ n }] = await stack.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT last_value AS n FROM test_attempt_writes`);
      expect(Number(n)).toBe(2);
      expect(markers(await historyOf(d.id))).toHaveLength(2);
    } finally {
      await stack.db.prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS test_fail_first_299 ON webhook_delivery_attempts`);
    }
  });
});

describe('the delivery task queue', () => {
  it('a run backlog does not hold up webhooks: with nothing serving the run queue, 20 runs wait and a delivery is made', async () => {
    const t = await tenant();
    const r = await receiver();
    const ep = await endpoint(t, r.origin, ['workflow.updated']);
    // Only the delivery queue is served now (WORKER_TASK_QUEUES=deliveries): whatever reaches the run queue waits there.
    await stack.stopWorker();
    const runIds: string[] = [];
    try {
      await stack.startWorker(['deliveries']);
      for (let i = 0; i < 20; i++) {
        const started = await stack.api('POST', `/api/v1/workflows/${t.workflowId}/runs`, {
          key: t.key,
          body: { input: { name: `n${i}` } },
        });
        expect(started.status).toBe(201);
        runIds.push(started.body.id);
      }
      // A new version, applied as `svc workflows apply` does: its workflow.updated event needs no run.
      const definition = validateDefinition({ ...greet, description: 'a new version' });
      await applyWorkflowAndAnnounce(stack.db.prisma, stack.box, { workspaceId: t.workspaceId, definition, baseUrl: stack.url });
      const d = await waitForDelivery(t, ep.id, (x) => x.status === 'succeeded');
      expect(r.requests[0].body).toMatchObject({ id: d.event_id, type: 'workflow.updated' });
      // The backlog was there all along: not one of the runs has had a workflow task.
      expect(await statusCounts(stack.db, runIds)).toEqual({ queued: 20 });
      const histories = await Promise.all(runIds.map((id) => stack.temporal.workflow.getHandle(id).fetchHistory()));
      expect(histories.filter((h) => h.events!.some((e) => e.workflowTaskStartedEventAttributes))).toHaveLength(0);
    } finally {
      await stack.stopWorker();
      await stack.startWorker();
    }
    // Served again, the run queue drains.
    await waitFor(
      () => statusCounts(stack.db, runIds),
      (c) => c.succeeded === 20,
    );
  });
});

describe('workflow.updated from `svc workflows apply`', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-wh-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function svc(args: string[]) {
    return spawnSync(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args], {
      env: { ...process.env, DATA_DIR: dir, BASE_URL: 'http://api.example.test' },
      encoding: 'utf8',
    });
  }

  function apply(workspaceId: string, definition: object) {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(definition));
    const res = spawnSync(
      process.execPath,
      [path.join(ROOT, 'apps/cli/bin/svc.js'), 'workflows', 'apply', '--workspace', workspaceId, '-f', file, '--json'],
      {
        env: { ...process.env, DATA_DIR: dir, BASE_URL: 'http://api.example.test' },
        encoding: 'utf8',
      },
    );
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    return JSON.parse(res.stdout);
  }

  it('raises workflow.updated once per new version and delivers it', async () => {
    const t = await stack.tenant();
    const r = await receiver();
    const ep = await endpoint({ ...t, workflowId: '' }, r.origin, ['workflow.updated']);
    const slug = 'cli-updated';
    const v1 = apply(t.workspaceId, { ...greet, slug });
    expect(v1.change).toBe('created');
    const v2 = apply(t.workspaceId, { ...greet, slug, description: 'second version' });
    expect(v2).toMatchObject({ change: 'updated', version: 2 });
    expect(apply(t.workspaceId, { ...greet, slug, description: 'second version' }).change).toBe('unchanged');

    await waitFor(
      async () => r.requests.length,
      (n) => n === 1,
    );
    // Events are recorded by `apply` itself, before it returns: one, for v2 (none for the
    // creation or the unchanged apply), and so one delivery, already made.
    expect(await stack.db.prisma.event.count({ where: { workspaceId: t.workspaceId } })).toBe(1);
    expect(await stack.db.prisma.webhookDelivery.count({ where: { endpointId: ep.id } })).toBe(1);
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    expect(req.body).toMatchObject({
      type: 'workflow.updated',
      workspace_id: t.workspaceId,
      data: { id: v2.id, version: 2, description: 'second version' },
    });
    expect(verifySvcWebhook(req.raw, req.headers['svc-signature'], ep.secret)).toBe(true);

    // `svc deliveries list --endpoint` shows the same log.
    await waitFor(
      () => deliveriesOf({ ...t, workflowId: '' }, ep.id, '?status=succeeded'),
      (l) => l.length === 1,
    );
    const listed = svc(['deliveries', 'list', '--endpoint', ep.id, '--json']);
    expect(listed.status).toBe(0);
    const page = JSON.parse(listed.stdout);
    expect(page.data).toEqual([expect.objectContaining({ event_type: 'workflow.updated', status: 'succeeded', attempt_count: 1 })]);
    const shown = svc(['deliveries', 'show', page.data[0].id]);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('status succeeded, 1 attempt(s)');
    const unknown = svc(['deliveries', 'list', '--endpoint', 'we_nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('endpoint_not_found');
  });
});
