import { InterceptingCall } from '@grpc/grpc-js';
import type { Interceptor } from '@grpc/grpc-js';
import { Client, Connection, makeGrpcRetryInterceptor } from '@temporalio/client';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { createApiKey, getRun, revokeApiKey, SCOPES, setWorkspacePlan, startRun } from '@svc/domain';
import { createRunLauncher, RUN_WORKFLOW_TYPE } from '@svc/temporal';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startExtraGateway } from './helpers/extraGateway';
import type { ExtraGateway } from './helpers/extraGateway';
import { greet } from './helpers/fixtures';
import { apiCall } from './helpers/http';
import { runToSettle } from './helpers/runs';
import type { Tenant } from './helpers/tenants';

/**
 * The hot paths in few database round trips, counted for real: a dedicated pg
 * pool and pipelined lane whose every client.query (one round trip: BEGIN and COMMIT count too)
 * is recorded, under a gateway wired exactly as main.ts wires it, and a Temporal connection whose
 * every RPC is recorded for the Temporal side of a run start.
 */

/** A database handle on the test database that records every statement its connections send. */
function countingDb(): { db: DbHandle; statements: string[] } {
  const statements: string[] = [];
  const db = createDb(process.env.DATABASE_URL!, { max: 4 });
  const record = (client: { query: unknown }) => {
    const query = (client.query as (...a: unknown[]) => unknown).bind(client);
    client.query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string };
      statements.push(typeof first === 'string' ? first : (first?.text ?? String(first)));
      return query(...args);
    };
  };
  // The pool's connections (transactions, Prisma) and the pipelined lane's (single statements).
  db.pool.on('connect', record);
  db.lane.on('connect', record);
  return { db, statements };
}

/** Statements sent while `fn` runs. */
async function counted<T>(statements: string[], fn: () => Promise<T>): Promise<{ value: T; sent: string[] }> {
  const before = statements.length;
  const value = await fn();
  return { value, sent: statements.slice(before) };
}

let stack: TestStack;
let tenant: Tenant;
let key: string;
let workspaceId: string;
let wfId: string;
let counting: { db: DbHandle; statements: string[] };
let gateway: ExtraGateway;

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant();
  ({ key, workspaceId } = tenant);
  wfId = (await stack.apply(workspaceId, greet)).id;
  counting = countingDb();
  gateway = await startExtraGateway(stack, '127.0.0.1', {}, counting.db);
});
afterAll(async () => {
  await gateway?.close();
  await counting?.db.close();
  await stack?.stop();
});

const api = (method: string, path: string, opts: Parameters<typeof apiCall>[3] = {}) =>
  apiCall(gateway.url, method, path, { key, ...opts });

describe('authentication and both rate-limit counters', () => {
  it('take ONE statement per request, with the RateLimit headers as before', async () => {
    await api('GET', '/api/v1/nope'); // the pool's first connection
    const { value: r, sent } = await counted(counting.statements, () => api('GET', '/api/v1/nope'));
    expect(r.status).toBe(404);
    expect(r.headers.get('ratelimit-policy')).toBe('"key";q=600;w=60, "workspace";q=1200;w=60');
    expect(r.headers.get('ratelimit')).toMatch(/^"key";r=598;t=\d+$/);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/api_keys[\s\S]*rate_limits/);
  });

  it('refuse a revoked key on the very next request, in that one statement', async () => {
    const fresh = await createApiKey(stack.db.prisma, { workspaceId, name: 'revoke-me', scopes: [...SCOPES] });
    expect((await api('GET', '/api/v1/nope', { key: fresh.key })).status).toBe(404);
    await revokeApiKey(stack.db.prisma, fresh.id);
    const { value: r, sent } = await counted(counting.statements, () => api('GET', '/api/v1/nope', { key: fresh.key }));
    expect([r.status, r.body.code]).toEqual([401, 'api_key_revoked']);
    expect(sent.filter((s) => /api_keys/.test(s))).toHaveLength(1);
  });
});

describe("a busy key's counts, taken a lease at a time", () => {
  /** Sequential requests of one key: each answer's RateLimit remainder and the statements it sent. */
  async function burst(presented: string, n: number): Promise<{ remaining: number[]; sent: string[][] }> {
    const out = { remaining: [] as number[], sent: [] as string[][] };
    for (let i = 0; i < n; i++) {
      const { value: r, sent } = await counted(counting.statements, () => api('GET', '/api/v1/nope', { key: presented }));
      expect(r.status).toBe(404);
      out.remaining.push(Number(/^"key";r=(\d+);/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
      out.sent.push(sent);
    }
    return out;
  }
  const counts = (sent: string[][]) => sent.filter(([s]) => /rate_limits/.test(s)).length;
  const keyCount = async (keyId: string) =>
    (await stack.db.pool.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1', [`key:${keyId}`])).rows[0]?.points;

  it('serves most requests with a read-only key check, one statement each, reporting RateLimit exactly as if each were counted', async () => {
    const { workspaceId: ws } = await stack.tenant();
    const k = await createApiKey(stack.db.prisma, { workspaceId: ws, name: 'busy', scopes: [...SCOPES] });
    const { remaining, sent } = await burst(k.key, 40);
    expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => 599 - i));
    expect(sent.every((s) => s.length === 1 && /api_keys/.test(s[0]))).toBe(true);
    // Leases of 1, 1, 2, 4, 8, 16, 32 (each used up within a second): 7 counting statements cover 64 requests.
    expect(counts(sent)).toBeGreaterThanOrEqual(2);
    expect(counts(sent)).toBeLessThanOrEqual(8);
    // Every request served is backed by a point in the shared counter; the lease's unused ones too.
    const points = await keyCount(k.id);
    expect(points).toBeGreaterThan(40);
    expect(points).toBeLessThanOrEqual(40 + 63);

    // The lease still has points, yet a revocation holds on the very next request, in one statement.
    await revokeApiKey(stack.db.prisma, k.id);
    const { value: r, sent: after } = await counted(counting.statements, () => api('GET', '/api/v1/nope', { key: k.key }));
    expect([r.status, r.body.code]).toEqual([401, 'api_key_revoked']);
    // (The refusal then counts against the client address, as any 401 does.)
    expect(after.filter((st) => /api_keys/.test(st))).toHaveLength(1);
  });

  it('judges the very next request under a new plan, though a lease taken under the old one has points left', async () => {
    const { workspaceId: ws } = await stack.tenant();
    const k = await createApiKey(stack.db.prisma, { workspaceId: ws, name: 'busy', scopes: [...SCOPES] });
    await burst(k.key, 20);
    const counted20 = await keyCount(k.id);
    expect(counted20).toBeGreaterThan(20);
    // A figure below what the key has already used this minute: refused at once.
    await setWorkspacePlan(stack.db.prisma, ws, { plan: 'enterprise', rateLimitPerMin: 19 });
    const { value: r } = await counted(counting.statements, () => api('GET', '/api/v1/nope', { key: k.key }));
    expect(r.status).toBe(429);
    expect(r.headers.get('ratelimit-policy')).toBe('"key";q=19;w=60, "workspace";q=38;w=60');
    // The refused request is given back: the counter stands where the lease left it.
    expect(await keyCount(k.id)).toBe(counted20);
  });
});

describe('POST /workflows/{id}/runs', () => {
  it('takes 3 statements (the key check, the look-up, the write that returns the run), 4 on a version not seen yet', async () => {
    const wf = await stack.apply(workspaceId, { ...greet, slug: 'greet-count' });
    const cold = await counted(counting.statements, () =>
      api('POST', `/api/v1/workflows/${wf.id}/runs`, { body: { input: { name: 'a' } } }),
    );
    expect(cold.value.status).toBe(201);
    const warm = await counted(counting.statements, () =>
      api('POST', `/api/v1/workflows/${wf.id}/runs`, { body: { input: { name: 'b' } } }),
    );
    expect(warm.value.status).toBe(201);
    // The key check; the look-up; the write, which returns the run (+ the pinned definition, cold).
    expect(cold.sent).toHaveLength(3 + 1);
    expect(cold.sent.filter((s) => /workflow_versions/.test(s))).toHaveLength(1);
    expect(warm.sent).toHaveLength(3);
    expect(warm.sent[0]).toMatch(/api_keys/);
    expect(warm.sent[1]).toMatch(/FROM workspaces ws LEFT JOIN workflows/);
    expect(warm.sent.filter((s) => /workflow_versions/.test(s))).toHaveLength(0);
    // The answer is the run as written: what a read of it then shows, before it ran.
    const stored = await getRun(stack.db.prisma, { workspaceId, runId: warm.value.body.id });
    expect(warm.value.body).toEqual({
      ...stored,
      status: 'queued',
      started_at: null,
      finished_at: null,
      duration_ms: null,
      output: null,
      steps: stored.steps!.map((st) => ({
        ...st,
        status: 'pending',
        attempts: 0,
        started_at: null,
        finished_at: null,
        duration_ms: null,
        output: null,
      })),
    });
    const replay = await counted(counting.statements, () =>
      api('POST', `/api/v1/workflows/${wf.id}/runs`, { body: { input: { name: 'c' } }, headers: { 'idempotency-key': 'count-me' } }),
    );
    expect(replay.value.status).toBe(201);
    expect(replay.sent).toHaveLength(3);
  });
});

describe('GET /runs/{id}', () => {
  it('is two statements (the key check, then the run read on a pooled connection), answering what getRun reads, 404 for another workspace', async () => {
    const started = await api('POST', `/api/v1/workflows/${wfId}/runs`, { body: { input: { name: 'read' }, wait: true } });
    expect(started.body.status).toBe('succeeded');
    const { value: r, sent } = await counted(counting.statements, () => api('GET', `/api/v1/runs/${started.body.id}`));
    expect(r.status).toBe(200);
    expect(r.body).toEqual(await getRun(stack.db.prisma, { workspaceId, runId: started.body.id }));
    expect(r.body.steps.map((st: { status: string }) => st.status)).toEqual(['succeeded']);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/api_keys/);
    expect(sent[1]).toMatch(/run_steps/);
    const other = await stack.tenant();
    const foreign = await counted(counting.statements, () => api('GET', `/api/v1/runs/${started.body.id}`, { key: other.key }));
    expect([foreign.value.status, foreign.value.body.code]).toEqual([404, 'run_not_found']);
    expect(foreign.sent).toHaveLength(2);
  });
});

describe('the Temporal side of a run start', () => {
  let rpcs: string[];
  let client: Client;
  let connection: Connection;

  beforeAll(async () => {
    rpcs = [];
    const record: Interceptor = (options, nextCall) => {
      rpcs.push(String(options.method_definition.path).split('/').pop() ?? '');
      return new InterceptingCall(nextCall(options));
    };
    connection = await Connection.connect({
      address: process.env.TEMPORAL_ADDRESS!,
      interceptors: [record, makeGrpcRetryInterceptor({ retryableDecider: () => false, delayFunction: () => 0 })],
    });
    client = new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  });
  afterAll(async () => {
    await connection?.close();
  });

  const startWith = (input: Record<string, unknown>, wait?: { timeoutMs: number }) =>
    startRun(
      { prisma: counting.db.prisma, launcher: createRunLauncher({ client, taskQueue: stack.taskQueue }) },
      { workspaceId, workflowId: wfId, input, body: { input, wait: !!wait }, trigger: 'api', wait },
    );

  it('is one StartWorkflowExecution without wait', async () => {
    rpcs.length = 0;
    const { run } = await startWith({ name: 'plain' });
    expect(run.id).toMatch(/^run_/);
    expect(rpcs).toEqual(['StartWorkflowExecution']);
  });

  it('is one update-with-start (ExecuteMultiOperation) with wait: true, which returns the settled run', async () => {
    await startWith({ name: 'warm' }, { timeoutMs: 25_000 });
    rpcs.length = 0;
    const { value, sent } = await counted(counting.statements, () => startWith({ name: 'wait' }, { timeoutMs: 25_000 }));
    expect(value.run.status).toBe('succeeded');
    expect(value.run.output).toEqual({ greeting: 'hello wait' });
    expect(rpcs[0]).toBe('ExecuteMultiOperation');
    expect(rpcs).not.toContain('StartWorkflowExecution');
    expect(rpcs).not.toContain('UpdateWorkflowExecution');
    expect(sent).toHaveLength(3);
  });

  it('runs a one-step run in one workflow task: one local activity, no patch marker, one search-attribute upsert (its end)', async () => {
    const { run } = await startWith({ name: 'shape' }, { timeoutMs: 25_000 });
    const { events } = await client.workflow.getHandle(run.id).fetchHistory();
    const started = events!.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!;
    expect(started.workflowType?.name).toBe(RUN_WORKFLOW_TYPE);
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events!.filter((e) => e.markerRecordedEventAttributes).map((e) => e.markerRecordedEventAttributes!.markerName)).toEqual([
      'core_local_activity',
    ]);
    expect(events!.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes)).toHaveLength(1);
    expect(events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
  });
});

describe("a run's last local step and its ending", () => {
  /** The transaction that last wrote the run's row, and each step's row (PostgreSQL's xmin). */
  const writers = async (runId: string) =>
    stack.db.prisma.$queryRaw<Array<{ key: string; step: string; run: string }>>`
      SELECT s.key, s.xmin::text AS step, r.xmin::text AS run FROM run_steps s JOIN runs r ON r.id = s.run_id
       WHERE r.id = ${runId} ORDER BY s.position`;

  it('are written in ONE transaction (one commit), the output expression evaluated on the step as stored', async () => {
    const run = await runToSettle(stack, tenant, greet, { name: 'one commit' });
    expect([run.status, run.output]).toEqual(['succeeded', { greeting: 'hello one commit' }]);
    const [shape] = await writers(run.id);
    expect(shape.step).toBe(shape.run);
  });

  it('are one transaction after earlier steps, each of which commits on its own; and so is a failed last step', async () => {
    const two = await runToSettle(
      stack,
      tenant,
      {
        name: 'Two',
        slug: 'two-local-steps',
        steps: [
          { key: 'a', type: 'transform', expression: "{ 'n': 1 }" },
          { key: 'b', type: 'transform', expression: "{ 'n': steps.a.output.n + 1 }" },
        ],
      },
      {},
    );
    expect([two.status, two.output]).toEqual(['succeeded', { n: 2 }]);
    const [a, b] = await writers(two.id);
    expect(b.step).toBe(b.run);
    expect(a.step).not.toBe(a.run);

    const failed = await runToSettle(
      stack,
      tenant,
      { name: 'Gate', slug: 'failing-gate', steps: [{ key: 'gate', type: 'condition', expression: 'input.ok = true' }] },
      { ok: false },
    );
    expect([failed.status, failed.error?.code]).toEqual(['failed', 'condition_failed']);
    const [gate] = await writers(failed.id);
    expect(gate.step).toBe(gate.run);
  });
});
