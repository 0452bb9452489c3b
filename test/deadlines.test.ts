import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import type { TemporalDevServer } from '@svc/devstack';
import { dedicatedTemporal } from './helpers/dedicatedTemporal';
import { greet } from './helpers/fixtures';
import { startExtraGateway } from './helpers/extraGateway';
import type { ExtraGateway } from './helpers/extraGateway';
import { apiCall } from './helpers/http';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Every database statement and Temporal call a request makes has a deadline: a slow (not down)
 * PostgreSQL or Temporal answers 503 `unavailable` with Retry-After, never a hang or a 500.
 */
const STATEMENT_TIMEOUT_MS = 1_000;

function expectUnavailable(r: { status: number; headers: Headers; body: any }) {
  expect([r.status, r.body.code]).toEqual([503, 'unavailable']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('PostgreSQL', () => {
  let stack: TestStack;
  let db: DbHandle;
  let gateway: ExtraGateway;
  beforeAll(async () => {
    stack = await startStack();
    // A gateway with one pooled connection and a short statement deadline.
    db = createDb(stack.config.DATABASE_URL!, { max: 1, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    gateway = await startExtraGateway(stack, '127.0.0.1', {}, db);
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.close();
    await stack?.stop();
  });

  async function aRun() {
    const { key, workspaceId } = await stack.tenant();
    const wf = await stack.apply(workspaceId, greet);
    const run = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'd' }, wait: true } });
    expect(run.body.status).toBe('succeeded');
    return { key, runId: run.body.id as string };
  }

  it('answers 503 when a statement runs past its deadline', async () => {
    const { key, runId } = await aRun();
    // Another session holds the runs table: the read waits, and is cancelled at the deadline.
    const holder = await stack.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      const t0 = Date.now();
      expectUnavailable(await apiCall(gateway.url, 'GET', `/api/v1/runs/${runId}`, { key }));
      expect(Date.now() - t0).toBeLessThan(STATEMENT_TIMEOUT_MS + 4_000);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect((await apiCall(gateway.url, 'GET', `/api/v1/runs/${runId}`, { key })).status).toBe(200);
  });

  it('answers 503 when no pooled connection comes free in time', async () => {
    const { key, runId } = await aRun();
    const only = await db.pool.connect();
    try {
      expectUnavailable(await apiCall(gateway.url, 'GET', `/api/v1/runs/${runId}`, { key }));
    } finally {
      only.release();
    }
    expect((await apiCall(gateway.url, 'GET', `/api/v1/runs/${runId}`, { key })).status).toBe(200);
  });
});

describe('Temporal', () => {
  let server: TemporalDevServer;
  let stack: TestStack;
  beforeAll(async () => {
    server = await dedicatedTemporal();
    stack = await startStack({ TEMPORAL_ADDRESS: server.address });
  });
  afterAll(async () => {
    process.kill(server.pid, 'SIGCONT');
    await stack?.stop();
    await server?.stop();
  });

  it('answers a start 503 when the server stops answering, and starts nothing', async () => {
    const { key, workspaceId } = await stack.tenant();
    const wf = await stack.apply(workspaceId, greet);
    // Alive but silent: the process is stopped, its connections stay open.
    process.kill(server.pid, 'SIGSTOP');
    try {
      const t0 = Date.now();
      const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'x' } } });
      expectUnavailable(r);
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    // Nothing half-written: the refused start left no run behind.
    expect(await stack.db.prisma.run.count({ where: { workspaceId } })).toBe(0);
  });
});
