import { createApiKey, SCOPES } from '@svc/domain';
import { greet } from './helpers/fixtures';
import { svcCli } from './helpers/cli';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { visibilityCaughtUp } from './helpers/visibility';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

/** The real `svc` bin, as an operator runs it, without blocking this process (it serves the test's requests). */
function svc(args: string[]) {
  return svcCli([...args, '--json']);
}

async function svcOk(args: string[]) {
  const r = await svc(args);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${r.stderr}`);
  return r.json();
}

/** A workspace made with `svc workspace create --plan`, and a key holding every scope. */
async function workspaceOn(plan: string) {
  const ws = await svcOk(['workspace', 'create', '--name', `plans-${plan}`, '--plan', plan]);
  const key = await createApiKey(stack.db.prisma, { workspaceId: ws.id, name: 'plans', scopes: [...SCOPES] });
  return { workspaceId: ws.id as string, key: key.key, plan: ws.plan as string };
}

const start = (workflowId: string, key: string, headers: Record<string, string> = {}) =>
  stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body: { input: { name: 'x' } }, headers });

const executions = async (query: string) => (await stack.temporal.workflow.count(query)).count;

describe('plans', () => {
  it.each([
    ['free', 60],
    ['basic', 120],
    ['pro', 600],
    ['business', 900],
    ['elite', 1200],
    ['enterprise', 1200],
  ])('the %s plan allows %i requests per minute per key and twice that per workspace', async (plan, perKey) => {
    const t = await stack.tenant({ plan });
    const r = await stack.api('GET', '/api/v1/workflows', { key: t.key });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toBe(`"key";q=${perKey};w=60, "workspace";q=${2 * perKey};w=60`);
    expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${perKey - 1};t=\\d+$`));
  });

  it('takes custom figures on enterprise only (svc workspace set-plan)', async () => {
    const t = await workspaceOn('pro');
    expect(t.plan).toBe('pro');
    expect(await svcOk(['workspace', 'set-plan', t.workspaceId, 'enterprise', '--rate-limit', '7', '--concurrency', '3'])).toMatchObject({
      plan: 'enterprise',
      rate_limit_per_min: 7,
      concurrency: 3,
    });
    const r = await stack.api('GET', '/api/v1/workflows', { key: t.key });
    expect(r.headers.get('ratelimit-policy')).toBe('"key";q=7;w=60, "workspace";q=14;w=60');

    const refused = await svc(['workspace', 'set-plan', t.workspaceId, 'business', '--rate-limit', '7']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/enterprise/);
    expect((await svc(['workspace', 'set-plan', t.workspaceId, 'platinum'])).code).not.toBe(0);
    // Nothing changed by the refused commands.
    expect((await stack.api('GET', '/api/v1/workflows', { key: t.key })).headers.get('ratelimit-policy')).toBe(
      '"key";q=7;w=60, "workspace";q=14;w=60',
    );

    // Leaving enterprise drops the custom figures.
    expect(await svcOk(['workspace', 'set-plan', t.workspaceId, 'business'])).toMatchObject({
      rate_limit_per_min: null,
      concurrency: null,
    });
    expect((await stack.api('GET', '/api/v1/workflows', { key: t.key })).headers.get('ratelimit-policy')).toBe(
      '"key";q=900;w=60, "workspace";q=1800;w=60',
    );
  });
});

describe('the free plan', () => {
  it('refuses runs by the API with 403, leaving nothing in PostgreSQL or Temporal, while reads still work', async () => {
    const t = await workspaceOn('free');
    expect(t.plan).toBe('free');
    const wf = await stack.apply(t.workspaceId, greet);

    for (const headers of [{}, { 'idempotency-key': 'free-1' }] as Record<string, string>[]) {
      const r = await start(wf.id, t.key, headers);
      expect(r.status).toBe(403);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 403, code: 'plan_does_not_allow_runs', request_id: r.headers.get('request-id') });
      expect(r.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60, "workspace";q=120;w=60');
    }
    const waiting = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: t.key, body: { input: { name: 'x' }, wait: true } });
    expect([waiting.status, waiting.body.code]).toEqual([403, 'plan_does_not_allow_runs']);

    // Nothing created or queued.
    expect(await stack.db.prisma.run.count({ where: { workspaceId: t.workspaceId } })).toBe(0);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId: t.workspaceId } })).toBe(0);
    expect(await stack.db.prisma.runStep.count({ where: { run: { workspaceId: t.workspaceId } } })).toBe(0);
    // Visibility is eventually consistent: once it has caught up, a stray execution would show.
    await visibilityCaughtUp(stack.temporal);
    expect(await executions(`SvcWorkflowId = "${wf.id}"`)).toBe(0);
    expect(await executions(`SvcWorkspaceId = "${t.workspaceId}"`)).toBe(0);

    // Read routes still work.
    const list = await stack.api('GET', '/api/v1/workflows', { key: t.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([wf.id]);
    expect((await stack.api('GET', `/api/v1/workflows/${wf.id}`, { key: t.key })).status).toBe(200);
    const runs = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs`, { key: t.key });
    expect([runs.status, runs.body.data]).toEqual([200, []]);
  });

  it('allows runs on the next request after an upgrade, and refuses them again after a downgrade', async () => {
    const t = await workspaceOn('free');
    const wf = await stack.apply(t.workspaceId, greet);
    expect((await start(wf.id, t.key)).status).toBe(403);

    await svcOk(['workspace', 'set-plan', t.workspaceId, 'basic']);
    const started = await start(wf.id, t.key);
    expect(started.status).toBe(201);
    expect(started.headers.get('ratelimit-policy')).toBe('"key";q=120;w=60, "workspace";q=240;w=60');

    await svcOk(['workspace', 'set-plan', t.workspaceId, 'free']);
    const refused = await start(wf.id, t.key);
    expect([refused.status, refused.body.code]).toEqual([403, 'plan_does_not_allow_runs']);
    expect(await stack.db.prisma.run.count({ where: { workspaceId: t.workspaceId } })).toBe(1);
    // A free workspace can still read the run it started before.
    expect((await stack.api('GET', `/api/v1/runs/${started.body.id}`, { key: t.key })).status).toBe(200);
  });
});
