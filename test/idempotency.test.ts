import { createServer } from 'node:net';
import { startGreetStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { greet, waitFor } from './helpers/fixtures';
import { spawnApp } from './helpers/processes';
import { call } from './helpers/http';
import { visibilityCaughtUp } from './helpers/visibility';

let stack: TestStack;
let key: string;
let workspaceId: string;
let wfId: string;

beforeAll(async () => {
  ({ stack, key, workspaceId, wfId } = await startGreetStack());
});
afterAll(async () => {
  await stack?.stop();
});

const start = (workflowId: string, body: unknown, idem?: string, k = key, url?: string) =>
  url
    ? call(`${url}/api/v1/workflows/${workflowId}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', ...(idem ? { 'idempotency-key': idem } : {}) },
        body: JSON.stringify(body),
      })
    : stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key: k, body, headers: idem ? { 'idempotency-key': idem } : {} });

const temporalCount = async (workflowId: string) => (await stack.temporal.workflow.count(`SvcWorkflowId = "${workflowId}"`)).count;

describe('Idempotency-Key', () => {
  it('replays the original run with 200 and Idempotent-Replayed, starting nothing new', async () => {
    const first = await start(wfId, { input: { name: 'a' } }, 'key-replay');
    expect(first.status).toBe(201);
    expect(first.body.idempotency_key).toBe('key-replay');
    const again = await start(wfId, { input: { name: 'a' } }, '"key-replay"');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBeNull();
    expect(again.body.id).toBe(first.body.id);
    expect(await stack.db.prisma.run.count({ where: { idempotencyKey: 'key-replay' } })).toBe(1);
  });

  it('waits for the replayed run too when the replay asks to wait', async () => {
    const body = { input: { name: 'w' }, wait: true };
    const first = await start(wfId, body, 'key-wait');
    const again = await start(wfId, body, 'key-wait');
    expect([again.status, again.body.id, again.body.status]).toEqual([200, first.body.id, 'succeeded']);
  });

  it('answers 422 idempotency_key_reused for the same key with a different body', async () => {
    await start(wfId, { input: { name: 'one' } }, 'key-reuse');
    const r = await start(wfId, { input: { name: 'two' } }, 'key-reuse');
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('idempotency_key_reused');
    expect(await stack.db.prisma.run.count({ where: { idempotencyKey: 'key-reuse' } })).toBe(1);
  });

  it('treats the same body with keys in a different order as the same request', async () => {
    const a = await start(wfId, { input: { name: 'n', x: 1 } }, 'key-order');
    const b = await stack.api('POST', `/api/v1/workflows/${wfId}/runs`, {
      key,
      rawBody: '{"input":{"x":1,"name":"n"}}',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'key-order' },
    });
    expect([b.status, b.body.id]).toEqual([200, a.body.id]);
  });

  it('creates exactly one run, in PostgreSQL and in Temporal, when 50 identical requests arrive at once', async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-race' });
    const answers = await Promise.all(Array.from({ length: 50 }, () => start(wf.id, { input: { name: 'race' } }, 'key-race')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(1);
    await waitFor(
      () => temporalCount(wf.id),
      (n) => n === 1,
    );
    // Visibility is eventually consistent: once it has caught up, a second execution would show.
    await visibilityCaughtUp(stack.temporal);
    expect(await temporalCount(wf.id)).toBe(1);
  });

  it('scopes keys to the workspace and the workflow', async () => {
    const other = await stack.apply(workspaceId, { ...greet, slug: 'greet-scope' });
    const a = await start(wfId, { input: { name: 's' } }, 'key-scope');
    const b = await start(other.id, { input: { name: 's' } }, 'key-scope');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    const tenant2 = await stack.tenant();
    const wf2 = await stack.apply(tenant2.workspaceId, greet);
    const c = await start(wf2.id, { input: { name: 's' } }, 'key-scope', tenant2.key);
    expect(c.status).toBe(201);
  });

  it('treats a key older than 24 hours as new', async () => {
    const first = await start(wfId, { input: { name: 'old' } }, 'key-old');
    await stack.db.prisma.idempotencyKey.updateMany({
      where: { key: 'key-old' },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const again = await start(wfId, { input: { name: 'old' } }, 'key-old');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });

  it('refuses malformed keys with 400', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é']) {
      const r = await stack
        .api('POST', `/api/v1/workflows/${wfId}/runs`, {
          key,
          body: { input: { name: 'k' } },
          headers: { 'idempotency-key': bad },
        })
        .catch(() => null);
      // fetch itself refuses some of these header values; the rest must be 400.
      if (r) expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
    }
  });

  it('replays after the gateway process restarts', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const env = { PORT: String(port), HOST: '127.0.0.1', TEMPORAL_TASK_QUEUE: stack.taskQueue, LOG_LEVEL: 'info' };
    const url = `http://127.0.0.1:${port}`;
    let gw = await spawnApp('gateway', env);
    const first = await start(wfId, { input: { name: 'restart' } }, 'key-restart', key, url);
    expect(first.status).toBe(201);
    expect(await gw.stop()).toBe(0);
    gw = await spawnApp('gateway', env);
    try {
      const again = await start(wfId, { input: { name: 'restart' } }, 'key-restart', key, url);
      expect([again.status, again.body.id]).toEqual([200, first.body.id]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await gw.stop();
    }
  });
});
