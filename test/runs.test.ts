import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { greet, slow, waitFor } from './helpers/fixtures';
import { call } from './helpers/http';
import { createDb } from '@svc/db';
import { getRun } from '@svc/domain';

let stack: TestStack;
let key: string;
let workspaceId: string;
let greetId: string;

beforeAll(async () => {
  stack = await startStack({ RUN_WAIT_TIMEOUT_MS: '3000' });
  ({ key, workspaceId } = await stack.tenant());
  greetId = (await stack.apply(workspaceId, greet)).id;
});
afterAll(async () => {
  await stack.stop();
});

const start = (workflowId: string, body: unknown, headers: Record<string, string> = {}, k = key) =>
  stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key: k, body, headers });

describe('starting a run', () => {
  it('answers 201 with Location and the queued or running run, then the run succeeds with its steps recorded', async () => {
    const r = await start(greetId, { input: { name: 'Ada' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/api/v1/runs/${r.body.id}`);
    expect(r.body).toMatchObject({
      workflow_id: greetId,
      workflow_version: 1,
      trigger: 'api',
      input: { name: 'Ada' },
      idempotency_key: null,
    });
    expect(r.body.id).toMatch(/^run_[0-9a-z]{24}$/);
    expect(['queued', 'running', 'succeeded']).toContain(r.body.status);
    expect(r.body.steps).toEqual([expect.objectContaining({ key: 'shape', name: 'shape', type: 'transform' })]);

    const done = await waitFor(
      () => stack.api('GET', `/api/v1/runs/${r.body.id}`, { key }),
      (x) => x.body.status === 'succeeded',
    );
    expect(done.body.output).toEqual({ greeting: 'hello Ada' });
    expect(done.body.error).toBeNull();
    expect(done.body.steps[0]).toMatchObject({ status: 'succeeded', attempts: 1, output: { greeting: 'hello Ada' }, error: null });
    expect(done.body.steps[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(done.body.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.body.started_at));
    expect(done.body.duration_ms).toBe(Date.parse(done.body.finished_at) - Date.parse(done.body.started_at));
  });

  it('with wait: true answers once the run has settled', async () => {
    const r = await start(greetId, { input: { name: 'Grace' }, wait: true });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('succeeded');
    expect(r.body.output).toEqual({ greeting: 'hello Grace' });
  });

  it('with wait: true answers with the still-running run at the deadline, and the run goes on', async () => {
    const wf = await stack.apply(workspaceId, slow(6000, 'slow-deadline'));
    const t0 = Date.now();
    const r = await start(wf.id, { input: {}, wait: true });
    const elapsed = Date.now() - t0;
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('running');
    expect(elapsed).toBeGreaterThanOrEqual(2900); // RUN_WAIT_TIMEOUT_MS = 3000 in this file
    expect(elapsed).toBeLessThan(5900);
    const done = await waitFor(
      () => stack.api('GET', `/api/v1/runs/${r.body.id}`, { key }),
      (x) => x.body.status === 'succeeded',
      20_000,
    );
    expect(done.body.steps.map((s: any) => s.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('never harms the run when the waiting client disconnects', async () => {
    const wf = await stack.apply(workspaceId, slow(1500, 'slow-disconnect'));
    const ac = new AbortController();
    const pending = call(`${stack.url}/api/v1/workflows/${wf.id}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: {}, wait: true }),
      signal: ac.signal,
    }).catch((e: Error) => e);
    await waitFor(
      () => stack.db.prisma.run.count({ where: { workflowId: wf.id } }),
      (n) => n === 1,
    );
    ac.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    const run = await stack.db.prisma.run.findFirstOrThrow({ where: { workflowId: wf.id } });
    await waitFor(
      () => stack.api('GET', `/api/v1/runs/${run.id}`, { key }),
      (x) => x.body.status === 'succeeded',
      20_000,
    );
  });

  it('refuses input that fails the input_schema with 422 and paths, creating nothing', async () => {
    const before = await stack.db.prisma.run.count({ where: { workflowId: greetId } });
    const r = await start(greetId, { input: { name: 42 } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'input.name' })]));
    expect(await stack.db.prisma.run.count({ where: { workflowId: greetId } })).toBe(before);
  });

  it('rejects unknown top-level fields and a non-object input with 422', async () => {
    const unknown = await start(greetId, { input: { name: 'a' }, extra: 1 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].message).toContain('extra');
    const notObject = await start(greetId, { input: ['a'] });
    expect(notObject.status).toBe(422);
    expect(notObject.body.errors[0].path).toBe('input');
  });

  it('answers 422 validation_failed for input nested deeper than 64 levels, never a 500, and starts nothing', async () => {
    const before = await stack.db.prisma.run.count({ where: { workflowId: greetId } });
    /** An input object of `levels` levels: {name, deep: [[…]]}. */
    const input = (levels: number) => `{"name":"x","deep":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const send = (levels: number) =>
      stack.api('POST', `/api/v1/workflows/${greetId}/runs`, {
        key,
        rawBody: `{"input":${input(levels)}}`,
        headers: { 'content-type': 'application/json' },
      });
    for (const levels of [65, 200_000]) {
      const r = await send(levels);
      expect([r.status, r.body.code]).toEqual([422, 'validation_failed']);
      expect(r.body.detail).toContain('64');
    }
    expect(await stack.db.prisma.run.count({ where: { workflowId: greetId } })).toBe(before);
    // Exactly 64 levels is accepted.
    expect((await send(64)).status).toBe(201);
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    const r = await stack.api('POST', `/api/v1/workflows/${greetId}/runs`, {
      key,
      rawBody: '{"input": {',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_json');
  });

  it('answers 415 when the body is not JSON', async () => {
    const r = await stack.api('POST', `/api/v1/workflows/${greetId}/runs`, {
      key,
      rawBody: 'input=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(r.body.code).toBe('unsupported_media_type');
  });

  it('answers 413 for input over 1 MiB and starts nothing', async () => {
    const before = await stack.db.prisma.run.count({ where: { workflowId: greetId } });
    const big = 'x'.repeat(1024 * 1024);
    const r = await start(greetId, { input: { name: big } });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
    const huge = await start(greetId, { input: { name: big + big } });
    expect(huge.status).toBe(413);
    expect(await stack.db.prisma.run.count({ where: { workflowId: greetId } })).toBe(before);
  });

  it("answers 404 workflow_not_found for a missing workflow and for another workspace's", async () => {
    expect((await start('wf_doesnotexist', { input: {} })).body.code).toBe('workflow_not_found');
    const other = await stack.tenant();
    const r = await start(greetId, { input: { name: 'x' } }, {}, other.key);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('workflow_not_found');
  });

  it('refuses runs on the free plan with 403 and creates nothing', async () => {
    const free = await stack.tenant({ plan: 'free' });
    const wf = await stack.apply(free.workspaceId, greet);
    const r = await start(wf.id, { input: { name: 'x' } }, {}, free.key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('plan_does_not_allow_runs');
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(0);
    // Read routes still work on the free plan.
    expect((await stack.api('GET', `/api/v1/workflows/${wf.id}`, { key: free.key })).status).toBe(200);
  });
});

describe('reading runs', () => {
  it('reads a run with its steps and review in one SQL statement, the same view as the API', async () => {
    const r = await start(greetId, { input: { name: 'Ada' }, wait: true });
    expect(r.body.status).toBe('succeeded');
    const db = createDb(stack.config.DATABASE_URL!, { max: 1 });
    let statements = 0;
    const count = (c: { query: (...a: unknown[]) => unknown }) => {
      const query = c.query.bind(c);
      c.query = (...a: unknown[]) => {
        statements++;
        return query(...a);
      };
    };
    db.pool.on('connect', (client) => count(client as never));
    try {
      await db.prisma.$queryRaw`SELECT 1`;
      statements = 0;
      const view = await getRun(db.prisma, { workspaceId, runId: r.body.id });
      expect(statements).toBe(1);
      const api = await stack.api('GET', `/api/v1/runs/${r.body.id}`, { key });
      expect(JSON.parse(JSON.stringify(view))).toEqual(api.body);
      expect(view.steps!.map((st) => [st.key, st.status])).toEqual([['shape', 'succeeded']]);
    } finally {
      await db.close();
    }
  });

  it("answers 404 run_not_found for another workspace's run, exactly like a missing one", async () => {
    const r = await start(greetId, { input: { name: 'x' }, wait: true });
    const other = await stack.tenant();
    const foreign = await stack.api('GET', `/api/v1/runs/${r.body.id}`, { key: other.key });
    const missing = await stack.api('GET', `/api/v1/runs/run_000000000000000000000000`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('run_not_found');
    expect({ ...foreign.body, request_id: '', detail: '' }).toEqual({ ...missing.body, request_id: '', detail: '' });
  });

  it("lists a workflow's runs newest first with cursor pagination and a status filter", async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-list' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await start(wf.id, { input: { name: `n${i}` }, wait: true })).body.id);
    const page1 = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs?limit=2`, { key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((r: any) => r.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.data[0].steps).toBeUndefined();
    // A run started between pages does not shift the next page.
    await start(wf.id, { input: { name: 'late' } });
    const page2 = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs?limit=2&cursor=${page1.body.next_cursor}`, { key });
    expect(page2.body.data.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);
    const page3 = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs?limit=2&cursor=${page2.body.next_cursor}`, { key });
    expect(page3.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    expect(page3.body.next_cursor).toBeNull();

    const succeeded = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs?status=succeeded&limit=100`, { key });
    expect(succeeded.body.data.length).toBeGreaterThanOrEqual(5);
    expect(succeeded.body.data.every((r: any) => r.status === 'succeeded')).toBe(true);
  });

  it('answers 400 for bad list parameters', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'status=done', 'cursor=notacursor']) {
      const r = await stack.api('GET', `/api/v1/workflows/${greetId}/runs?${q}`, { key });
      expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
    }
  });
});

describe('workflows', () => {
  it("lists and reads workflows with steps and the trigger URL, and hides other workspaces'", async () => {
    const list = await stack.api('GET', '/api/v1/workflows', { key });
    expect(list.status).toBe(200);
    const one = list.body.data.find((w: any) => w.id === greetId);
    expect(one).toMatchObject({ slug: 'greet', name: 'Greet', version: 1, steps: [{ key: 'shape', name: 'shape', type: 'transform' }] });
    expect(one.trigger.url).toMatch(new RegExp(`^${stack.url}/hooks/trg_`));
    expect(one.trigger.auth).toEqual({ secret: true, signature: false });
    expect(one.input_schema).toEqual(greet.input_schema);
    const other = await stack.tenant();
    expect((await stack.api('GET', '/api/v1/workflows', { key: other.key })).body.data).toEqual([]);
    expect((await stack.api('GET', `/api/v1/workflows/${greetId}`, { key: other.key })).status).toBe(404);
  });

  it('keeps the version a run started with when the workflow is updated', async () => {
    const wf = await stack.apply(workspaceId, slow(1500, 'versioned'));
    const r = await start(wf.id, { input: {} });
    const updated = await stack.apply(workspaceId, {
      ...slow(1500, 'versioned'),
      steps: [{ key: 'only', type: 'transform', expression: "'v2'" }],
    });
    expect(updated.version).toBe(2);
    const done = await waitFor(
      () => stack.api('GET', `/api/v1/runs/${r.body.id}`, { key }),
      (x) => x.body.status === 'succeeded',
      20_000,
    );
    expect(done.body.workflow_version).toBe(1);
    expect(done.body.output).toBe('done');
    const r2 = await start(wf.id, { input: {}, wait: true });
    expect([r2.body.workflow_version, r2.body.output]).toEqual([2, 'v2']);
  });
});
