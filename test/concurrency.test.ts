import type { ServerResponse } from 'node:http';
import { claimSlot, releaseSlots, showTrigger } from '@svc/domain';
import { call } from './helpers/http';
import { json, startEchoServer } from './helpers/echoServer';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { slow, statusCounts, waitFor } from './helpers/fixtures';
import { spawnApp } from './helpers/processes';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
});
afterAll(async () => {
  await stack.stop();
});

/** An enterprise workspace whose concurrency limit is `limit`. */
const limitedTenant = (limit: number) => stack.tenant({ limits: { concurrency: limit } });

async function startMany(key: string, workflowId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key, body: { input: { i } } });
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  return ids;
}

const statuses = (ids: string[]) => statusCounts(stack.db, ids);

describe('concurrency limits', () => {
  it('never runs more than the limit; the rest wait queued, then run first come, first served', async () => {
    // Each run's step blocks on this server until the test releases it.
    const held: { i: number; res: ServerResponse }[] = [];
    const gate = await startEchoServer((req, res) => held.push({ i: JSON.parse(req.body).i, res }));
    try {
      const { key, workspaceId } = await limitedTenant(2);
      const wf = await stack.apply(workspaceId, {
        name: 'Blocks',
        slug: 'blocks',
        steps: [{ key: 'call', type: 'http', method: 'POST', url: gate.url, body: { i: '{{ input.i }}' }, timeout: '60s' }],
      });
      const ids = await startMany(key, wf.id, 6);
      // Three waves of two, in the order the runs were started: only the two holding a slot
      // ever reach the blocking step, sampled many times while they hold it.
      for (let wave = 0; wave < 3; wave++) {
        await waitFor(
          () => Promise.resolve(held.length),
          (n) => n === 2,
        );
        const samples: Record<string, number>[] = [];
        for (let k = 0; k < 20; k++) {
          samples.push(await statuses(ids));
          await new Promise((r) => setTimeout(r, 25));
        }
        const queued = 4 - 2 * wave;
        expect(samples.every((s) => s.running === 2 && (s.queued ?? 0) === queued)).toBe(true);
        expect(held.map((h) => h.i).sort()).toEqual([2 * wave, 2 * wave + 1]);
        for (const h of held.splice(0)) json(h.res, 200, { ok: true });
      }
      await waitFor(
        () => statuses(ids),
        (s) => s.succeeded === 6,
      );
    } finally {
      for (const h of held) h.res.end();
      await gate.close();
    }
  });

  it("takes a local first step's slot before the step runs; with none free, runs nothing and waits queued", async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const wf = await stack.apply(workspaceId, {
      name: 'Local first',
      slug: 'local-first',
      steps: [
        { key: 'shape', type: 'transform', expression: "{ 'i': input.i }" },
        { key: 'hold', type: 'delay', duration: '3s' },
      ],
    });
    const [first, second] = await startMany(key, wf.id, 2);
    const view = (id: string) => stack.api('GET', `/api/v1/runs/${id}`, { key }).then((r) => r.body);
    const firstRun = await waitFor(
      () => view(first),
      (r) => r.steps[1].status === 'running',
    );
    expect([firstRun.status, firstRun.steps[0].output]).toEqual(['running', { i: 0 }]);
    // The slot was taken before the step's write: by an earlier transaction (PostgreSQL's xmin).
    const writers = await stack.db.prisma.$queryRaw<Array<{ slot: string; step: string }>>`
      SELECT s.xmin::text AS slot, st.xmin::text AS step FROM run_slots s JOIN run_steps st ON st.run_id = s.run_id AND st.key = 'shape'
       WHERE s.run_id = ${first} AND s.holding`;
    expect(writers).toHaveLength(1);
    expect(BigInt(writers[0].slot)).toBeLessThan(BigInt(writers[0].step));
    // The second run found no slot and joined the line, its step not run.
    await waitFor(
      () => stack.db.prisma.$queryRaw<Array<{ asked: boolean }>>`SELECT asked FROM run_slots WHERE run_id = ${second} AND NOT holding`,
      (rows) => rows.length === 1 && rows[0].asked,
    );
    const queued = await view(second);
    expect([queued.status, queued.steps[0].status, queued.steps[0].output]).toEqual(['queued', 'pending', null]);
    // Let in once the first run ends: the step runs, and the run goes on to its end.
    const secondRun = await waitFor(
      () => view(second),
      (r) => r.status === 'succeeded',
    );
    expect([secondRun.steps[0].output, (await view(first)).status]).toEqual([{ i: 1 }, 'succeeded']);
  });

  it('grants exactly the limit to concurrent claims, by creation order, and hands a freed slot to the next', async () => {
    const { key, workspaceId } = await limitedTenant(3);
    const wf = await stack.apply(workspaceId, slow(10, 'claims'));
    // The runs' own workflows stay out of it, and are ended before the worker is back.
    await stack.withoutWorker(async () => {
      try {
        const ids = await startMany(key, wf.id, 12);
        const claims = await Promise.all(
          ids.map((runId) => claimSlot(stack.db.prisma, { workspaceId, runId, grantKey: `${runId}:claim` })),
        );
        const granted = ids.filter((_, i) => claims[i].granted || claims.some((c) => c.alsoGranted.some((g) => g.runId === ids[i])));
        expect(granted).toEqual(ids.slice(0, 3));
        expect(await stack.db.prisma.runSlot.count({ where: { workspaceId, holding: true } })).toBe(3);
        const release = { workspaceId, runIds: [ids[1]], grantKey: `${ids[1]}:finish` };
        expect((await releaseSlots(stack.db.prisma, release)).map((g) => g.runId)).toEqual([ids[3]]);
        // A retried release (its first attempt died before telling) finds the run it let in again.
        expect(await releaseSlots(stack.db.prisma, release)).toEqual([{ runId: ids[3], temporalWorkflowId: ids[3] }]);
        // A waiting one leaves the line.
        expect(await releaseSlots(stack.db.prisma, { workspaceId, runIds: [ids[7]], grantKey: `${ids[7]}:cancel` })).toEqual([]);
      } finally {
        for (const w of await stack.db.prisma.run.findMany({ where: { workflowId: wf.id } }))
          await stack.temporal.workflow.getHandle(w.id).terminate('test cleanup');
        await stack.db.prisma.runSlot.deleteMany({ where: { workspaceId } });
      }
    });
  });

  it('does not delay other workspaces', async () => {
    const busy = await limitedTenant(1);
    const busyWf = await stack.apply(busy.workspaceId, slow(3000, 'busy'));
    await startMany(busy.key, busyWf.id, 3);
    const other = await stack.tenant();
    const wf = await stack.apply(other.workspaceId, slow(10, 'quick'));
    const t0 = Date.now();
    const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: other.key, body: { input: {}, wait: true } });
    expect(r.body.status).toBe('succeeded');
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('cancels a queued run before any step, freeing its place in the queue', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const wf = await stack.apply(workspaceId, slow(1500, 'queue-cancel'));
    const [first, second, third] = await startMany(key, wf.id, 3);
    await waitFor(
      () => statuses([first]),
      (s) => s.running === 1,
    );
    const c = await stack.api('POST', `/api/v1/runs/${second}/cancel`, { key });
    expect([c.status, c.body.status]).toEqual([200, 'cancelled']);
    expect(c.body.steps.every((s: any) => s.status === 'cancelled' && s.attempts === 0)).toBe(true);
    expect(c.body.started_at).toBeNull();
    await waitFor(
      () => statuses([first, third]),
      (s) => s.succeeded === 2,
      30_000,
    );
    expect((await stack.api('GET', `/api/v1/runs/${second}`, { key })).body.status).toBe('cancelled');
  });

  it('gives the slot back when a run waits for review, and when a worker is restarted mid-run', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const review = await stack.apply(workspaceId, {
      name: 'Gate',
      slug: 'gate',
      steps: [
        { key: 'ok', type: 'review', title: 'Go?' },
        { key: 'after', type: 'delay', duration: '1500ms' },
      ],
    });
    const paused = await stack.api('POST', `/api/v1/workflows/${review.id}/runs`, { key, body: { input: {}, wait: true } });
    expect(paused.body.status).toBe('waiting_for_review');
    const plain = await stack.apply(workspaceId, slow(1500, 'after-review'));
    const [next] = await startMany(key, plain.id, 1);
    await waitFor(
      () => statuses([next]),
      (s) => s.running === 1,
    ); // the paused run holds no slot

    await stack.stopWorker(); // mid-run
    await stack.startWorker();
    await waitFor(
      () => statuses([next]),
      (s) => s.succeeded === 1,
      30_000,
    );
    await stack.api('POST', `/api/v1/runs/${paused.body.id}/review`, { key, body: { decision: 'approve' } });
    await waitFor(
      () => statuses([paused.body.id]),
      (s) => s.succeeded === 1,
      30_000,
    );
  });

  it('gets the slot back from failed, timed-out and cancelled runs', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const failing = await stack.apply(workspaceId, {
      name: 'Fails',
      slug: 'fails',
      steps: [
        { key: 'pause', type: 'delay', duration: '300ms' },
        { key: 'boom', type: 'transform', expression: "$error('no')" },
      ],
    });
    const expiring = await stack.apply(workspaceId, {
      name: 'Expires',
      slug: 'expires',
      steps: [
        { key: 'pause', type: 'delay', duration: '300ms' },
        { key: 'gate', type: 'review', title: 'Go?', timeout: '1s', on_timeout: 'reject' },
      ],
    });
    const gated = await stack.apply(workspaceId, {
      name: 'Gated',
      slug: 'gated',
      steps: [
        { key: 'pause', type: 'delay', duration: '300ms' },
        { key: 'gate', type: 'review', title: 'Go?' },
      ],
    });
    const plain = await stack.apply(workspaceId, slow(300, 'after-all'));
    // One slot: each run starts only once the one before it has given its slot back.
    const [failed] = await startMany(key, failing.id, 1);
    const [expired] = await startMany(key, expiring.id, 1);
    const [cancelled] = await startMany(key, gated.id, 1);
    const [last] = await startMany(key, plain.id, 1);
    await waitFor(
      () => statuses([cancelled]),
      (s) => s.waiting_for_review === 1,
    );
    expect((await stack.api('POST', `/api/v1/runs/${cancelled}/cancel`, { key })).status).toBe(200);
    const end = await waitFor(
      () => statuses([failed, expired, cancelled, last]),
      (s) => s.succeeded === 1,
      30_000,
    );
    expect(end).toEqual({ failed: 2, cancelled: 1, succeeded: 1 });
  });

  it('reclaims the slot of a run terminated from Temporal', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const wf = await stack.apply(workspaceId, slow(60_000, 'terminated'));
    const [stuck, waiting] = await startMany(key, wf.id, 2);
    await waitFor(
      () => statuses([stuck]),
      (s) => s.running === 1,
    );
    expect(await statuses([waiting])).toEqual({ queued: 1 });
    await stack.temporal.workflow.getHandle(stuck).terminate('operator test');
    await waitFor(
      () => statuses([waiting]),
      (s) => s.running === 1,
      30_000,
    );
  });
  it('gives the slot back after the worker process is killed (kill -9) mid-run', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const wf = await stack.apply(workspaceId, slow(2000, 'killed'));
    // Only a separate worker process serves the task queue while the runs start.
    await stack.withoutWorker(async () => {
      const worker = await spawnApp('worker', { TEMPORAL_TASK_QUEUE: stack.taskQueue, LOG_LEVEL: 'info' });
      try {
        const [first, second] = await startMany(key, wf.id, 2);
        await waitFor(
          () => statuses([first, second]),
          (s) => s.running === 1 && s.queued === 1,
        );
        await worker.stop('SIGKILL');
      } finally {
        await worker.stop('SIGKILL');
      }
    });
    const runs = await stack.db.prisma.run.findMany({ where: { workflowId: wf.id } });
    await waitFor(
      () => statuses(runs.map((r) => r.id)),
      (s) => s.succeeded === 2,
      60_000,
    );
    const steps = await stack.db.prisma.runStep.findMany({ where: { runId: { in: runs.map((r) => r.id) } } });
    expect(steps.every((st) => st.status === 'succeeded' && st.attempts === 1)).toBe(true);
  });
});

describe('the queue cap', () => {
  it('refuses a start beyond 1,000 × the concurrency figure of queued runs with 429 queue_full, creating nothing; a replay still answers', async () => {
    const { key, workspaceId } = await limitedTenant(1);
    const wf = await stack.apply(workspaceId, slow(60_000, 'capped'));
    const first = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
      key,
      body: { input: {} },
      headers: { 'idempotency-key': 'cap-1' },
    });
    expect(first.status).toBe(201);
    await waitFor(
      () => statuses([first.body.id]),
      (x) => x.running === 1,
    );
    // The line fills up to the cap (the running one holds the slot): 1,000 queued runs, written as startRun writes them.
    await stack.db.pool.query(
      `WITH r AS (
         INSERT INTO runs (id, workspace_id, workflow_id, workflow_version, status, input, trigger, temporal_workflow_id)
         SELECT 'run_capfill' || g, $1, $2, 1, 'queued', '{}'::jsonb, 'api', 'run_capfill' || g FROM generate_series(1, 1000) g
         RETURNING id, workspace_id, seq)
       INSERT INTO run_slots (run_id, workspace_id, seq) SELECT id, workspace_id, seq FROM r`,
      [workspaceId, wf.id],
    );
    const before = await stack.db.prisma.run.count({ where: { workspaceId } });
    const refused = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
      key,
      body: { input: {} },
      headers: { 'idempotency-key': 'cap-2' },
    });
    expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([429, 'queue_full', '10']);
    // The workflow's trigger is held to the same cap.
    const hook = await showTrigger(stack.db.prisma, stack.box, { workflowId: wf.id, baseUrl: stack.url });
    const viaHook = await call(hook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-secret': hook.secret, 'idempotency-key': 'cap-hook' },
      body: '{}',
    });
    expect([viaHook.status, viaHook.body.code, viaHook.headers.get('retry-after')]).toEqual([429, 'queue_full', '10']);
    expect(await stack.db.prisma.run.count({ where: { workspaceId } })).toBe(before);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId, key: 'cap-hook' } })).toBe(0);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId, key: 'cap-2' } })).toBe(0);
    // A replay of an accepted start is still answered.
    const replay = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
      key,
      body: { input: {} },
      headers: { 'idempotency-key': 'cap-1' },
    });
    expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
    // Room again once one leaves the line.
    await stack.db.pool.query(`DELETE FROM runs WHERE id = 'run_capfill1'`);
    const accepted = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } });
    expect([accepted.status, accepted.body.status]).toEqual([201, 'queued']);
    await stack.db.pool.query(`DELETE FROM runs WHERE workspace_id = $1 AND id LIKE 'run_capfill%'`, [workspaceId]);
    for (const r of await stack.db.prisma.run.findMany({ where: { id: { in: [first.body.id, accepted.body.id] } } }))
      await stack.temporal.workflow.getHandle(r.temporalWorkflowId).terminate('test cleanup');
  });
});
