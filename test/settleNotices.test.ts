import { randomBytes } from 'node:crypto';
import { connectionConfig, NotificationListener, Prisma } from '@svc/db';
import { listenForSettledRuns, runFromJson, runSelectJson } from '@svc/domain';
import { slow, waitFor } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * `wait: true` ends at PostgreSQL's notice of the run settling (sent by the settling transaction of
 * a run whose start waits, on the waiting gateway's own channel, and delivered at its commit, with
 * the run as `GET` reads it), without waiting for Temporal to finish the workflow task; the wait
 * through Temporal stays, for a notice that is lost.
 */

let stack: TestStack;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ key, workspaceId } = await stack.tenant());
});
afterAll(async () => {
  await stack.stop();
});

const notify = (channel: string, payload: string) => stack.db.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);

/** Resolves with true when `p` settles within `ms`, false otherwise. */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);

/**
 * Whether `heard` (a watch's next notice on `listener`'s channel) is still unresolved once a
 * marker sent there now arrives: notices arrive in commit order, so none came before it.
 */
async function heardNothing(listener: NotificationListener, heard: Promise<unknown>): Promise<boolean> {
  const key = `marker_${randomBytes(4).toString('hex')}`;
  const marker = listener.watch(key);
  await notify(listener.channel, key);
  await marker.next();
  marker.close();
  return !(await within(heard, 50));
}

describe('NotificationListener', () => {
  const channel = () => `svc_test_${randomBytes(4).toString('hex')}`;

  it('resolves a watch once per notice of its payload, keeping one sent before it was asked for, and never for another payload', async () => {
    const ch = channel();
    const listener = new NotificationListener(connectionConfig(stack.config.DATABASE_URL!), ch);
    await listener.start();
    try {
      const mine = listener.watch('run_a');
      const other = listener.watch('run_b');
      await notify(ch, 'run_a');
      await notify(ch, 'run_a');
      expect([await mine.next(), await mine.next()]).toEqual([undefined, undefined]);
      // Both notices taken; the other payload's watch saw none (a later notice of its own comes first).
      const otherNext = other.next();
      await notify(ch, 'run_b');
      await otherNext;
      // A body after the key's newline comes with its notice.
      const third = mine.next();
      await notify(ch, 'run_a\n{"line":"one\ntwo"}');
      expect(await third).toBe('{"line":"one\ntwo"}');
      // Closed: a notice no longer reaches it.
      const fourth = mine.next();
      mine.close();
      await notify(ch, 'run_a');
      await notify(ch, 'run_b');
      await other.next();
      expect(await within(fourth, 200)).toBe(false);
      other.close();
    } finally {
      await listener.close();
    }
  });

  it('listens again after its connection is cut', async () => {
    const ch = channel();
    const listener = new NotificationListener(connectionConfig(stack.config.DATABASE_URL!), ch, { retryMs: 100, onError: () => undefined });
    await listener.start();
    try {
      const cut = await stack.db.pool.query(`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE query = $1`, [
        `LISTEN "${ch}"`,
      ]);
      expect(cut.rows).toEqual([{ cut: true }]);
      const watch = listener.watch('after');
      const heard = watch.next();
      // Notices sent while it reconnects are lost by design: send until one is heard.
      await waitFor(
        async () => {
          await notify(ch, 'after');
          return within(heard, 100);
        },
        (ok) => ok,
        10_000,
        0,
      );
      watch.close();
    } finally {
      await listener.close();
    }
  });
});

it("notifies a waited-on run to its gateway's channel alone, when it pauses for a review and when it ends, as `GET` reads it", async () => {
  const wf = await stack.apply(workspaceId, {
    name: 'Noticed',
    slug: 'noticed',
    steps: [{ key: 'ok', type: 'review', title: 'Go?' }],
  });
  // Another gateway's listener, on a channel of its own.
  const elsewhere = listenForSettledRuns(stack.config.DATABASE_URL!);
  await elsewhere.start();
  try {
    // Without a worker the run waits (queued) while the test learns its id and watches it.
    const { runId, watch, answer } = await stack.withoutWorker(async () => {
      const answer = stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
      const run = await waitFor(
        () => stack.db.prisma.run.findFirst({ where: { workflowId: wf.id }, select: { id: true } }),
        (r) => r !== null,
      );
      return { runId: run!.id, watch: stack.settleNotices.watch(run!.id), answer };
    });
    const other = elsewhere.watch(runId);
    const heardElsewhere = other.next();
    const paused = watch.next();
    // The wait ends at the pause; the notice, sent by the pausing transaction, is that run.
    const waited = await answer;
    expect([waited.status, waited.body.status]).toEqual([201, 'waiting_for_review']);
    expect(runFromJson(JSON.parse((await paused)!), runId)).toEqual((await stack.api('GET', `/api/v1/runs/${runId}`, { key })).body);
    const ended = watch.next();
    const decided = await stack.api('POST', `/api/v1/runs/${runId}/review`, { key, body: { decision: 'rejected' } });
    expect(decided.status).toBe(200);
    const final = runFromJson(JSON.parse((await ended)!), runId);
    expect(final.status).toBe('failed');
    expect(final).toEqual((await stack.api('GET', `/api/v1/runs/${runId}`, { key })).body);
    expect(await heardNothing(elsewhere, heardElsewhere)).toBe(true);
    watch.close();
    other.close();
  } finally {
    await elsewhere.close();
  }
});

it('sends no notice for a run no request waits on', async () => {
  const wf = await stack.apply(workspaceId, {
    name: 'Unnoticed',
    slug: 'unnoticed',
    steps: [{ key: 'shape', type: 'transform', expression: '{"ok": true}' }],
  });
  const { runId, watch } = await stack.withoutWorker(async () => {
    const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } });
    expect([started.status, started.body.status]).toEqual([201, 'queued']);
    return { runId: started.body.id as string, watch: stack.settleNotices.watch(started.body.id) };
  });
  const heard = watch.next();
  await waitFor(
    () => stack.api('GET', `/api/v1/runs/${runId}`, { key }),
    (r) => r.body.status === 'succeeded',
  );
  expect(await heardNothing(stack.settleNotices, heard)).toBe(true);
  expect((await stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { settleChannel: true } })).settleChannel).toBeNull();
  watch.close();
});

/**
 * A `wait: true` start of a run that stays `running` for a minute (Temporal would answer its wait
 * only at the 25 s deadline), once the run is running: its answer still to come, and its id.
 */
async function waitingOnSlowRun(slug: string) {
  const wf = await stack.apply(workspaceId, slow(60_000, slug));
  const answer = stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
  const run = await waitFor(
    () => stack.db.prisma.run.findFirst({ where: { workflowId: wf.id }, select: { id: true, status: true } }),
    (r) => r?.status === 'running',
  );
  return { answer, runId: run!.id };
}

it("ends a start's wait at its run's notice, without waiting for Temporal to answer it", async () => {
  const { answer, runId } = await waitingOnSlowRun('noticed-wait');
  await notify(stack.settleNotices.channel, runId);
  // Answered at the notice, with the run read as it then is (a real notice comes from its settling commit).
  expect(await within(answer, Number(stack.config.RUN_WAIT_TIMEOUT_MS) / 2)).toBe(true);
  const r = await answer;
  expect([r.status, r.body.id, r.body.status]).toEqual([201, runId, 'running']);
});

it("answers a start's wait with the run its notice carries, without reading it again", async () => {
  const { answer, runId } = await waitingOnSlowRun('noticed-body');
  // The run's row as a settling transaction sends it, marked so the answer shows where it came from.
  const [{ row }] = await stack.db.prisma.$queryRaw<Array<{ row: Record<string, unknown> }>>(
    Prisma.sql`SELECT ${runSelectJson(runId, workspaceId)} AS row`,
  );
  await notify(stack.settleNotices.channel, `${runId}\n${JSON.stringify({ ...row, status: 'succeeded' })}`);
  const r = await answer;
  expect([r.status, r.body.id, r.body.status]).toEqual([201, runId, 'succeeded']);
  expect((await stack.api('GET', `/api/v1/runs/${runId}`, { key })).body.status).toBe('running');
});
