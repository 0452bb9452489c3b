import { claimSlot, endSlot, isEndSlotExclusively, slotLimits } from '@svc/domain';
import type { Prisma } from '@svc/db';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { waitFor } from './helpers/fixtures';

/**
 * A run's slot at its ending (slots.ts endSlot, svc_end_slot): while no run of its workspace waits
 * for a slot it asked for, endings take the workspace's slot lock shared and tell nobody, so they
 * do not wait for one another; a claim, a release that lets a waiting run in, and a grant take it
 * exclusively. An ending that waited for the shared lock while a run began to wait is made again
 * under the exclusive one.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

/** A workspace with `concurrency` slots and `n` runs in its line (none asked yet), the runs' workflows held off. */
async function lineOf(concurrency: number, n: number, test: (workspaceId: string, runs: string[]) => Promise<void>): Promise<void> {
  const { key, workspaceId } = await stack.tenant({ limits: { concurrency } });
  const wf = await stack.apply(workspaceId, {
    name: 'Slot endings',
    slug: `slot-endings-${concurrency}-${n}`,
    steps: [{ key: 'shape', type: 'transform', expression: "'x'" }],
  });
  await stack.withoutWorker(async () => {
    const runs: string[] = [];
    try {
      for (let i = 0; i < n; i++)
        runs.push((await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } })).body.id);
      await test(workspaceId, runs);
    } finally {
      for (const id of runs) await stack.temporal.workflow.getHandle(id).terminate('test cleanup');
      await stack.db.prisma.runSlot.deleteMany({ where: { workspaceId } });
    }
  });
}

type Tx = Prisma.TransactionClient;

/** A transaction kept open after `work` until `finish` is called, which may give it a last statement. */
function openTransaction(work: (tx: Tx) => Promise<unknown>) {
  let finish!: (last?: (tx: Tx) => Promise<unknown>) => void;
  const finished = new Promise<((tx: Tx) => Promise<unknown>) | undefined>((r) => (finish = r));
  let worked!: () => void;
  const ready = new Promise<void>((r) => (worked = r));
  const done = stack.db.prisma.$transaction(
    async (tx) => {
      const out = await work(tx);
      worked();
      const last = await finished;
      return last ? last(tx) : out;
    },
    { timeout: 60_000 },
  );
  // A failing `work` fails the test at `done`, not by a wait that never ends.
  done.catch(() => worked());
  return { ready, finish, done };
}

/** Whether some transaction waits for an advisory lock (the workspace's slot lock). */
const waitingForSlotLock = () =>
  waitFor(
    () =>
      stack.db.prisma.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
    ([{ n }]) => n > 0,
  );

const holding = async (workspaceId: string) =>
  (await stack.db.prisma.runSlot.findMany({ where: { workspaceId }, orderBy: { seq: 'asc' } })).map((s) => [s.runId, s.holding, s.asked]);

const ending = (workspaceId: string, runId: string, o: { exclusive?: boolean } = {}) => ({
  workspaceId,
  runId,
  releaseKey: `${runId}:finish`,
  exclusive: o.exclusive ?? false,
});

it('ends side by side while no run waits, but a claim waits for them; tells nobody', async () => {
  await lineOf(3, 3, async (workspaceId, [a, b, c]) => {
    for (const runId of [a, b])
      expect((await claimSlot(stack.db.prisma, { workspaceId, runId, grantKey: `${runId}:claim` })).granted).toBe(true);
    // A's ending holds the shared lock, and B's ends meanwhile.
    const first = openTransaction((tx) => endSlot(tx, ending(workspaceId, a)));
    await first.ready;
    expect(await stack.db.prisma.$transaction((tx) => endSlot(tx, ending(workspaceId, b)))).toEqual([]);
    // A claim takes the lock exclusively: C's waits for A's ending to commit (C was let in by A's
    // claim, a slot being free then, and finds it when it asks).
    const claim = claimSlot(stack.db.prisma, { workspaceId, runId: c, grantKey: `${c}:claim` });
    await waitingForSlotLock();
    expect(await holding(workspaceId)).toEqual([
      [a, true, true],
      [c, true, false],
    ]);
    first.finish();
    expect(await first.done).toEqual([]);
    expect(await claim).toEqual({ granted: true, alsoGranted: [] });
    expect(await holding(workspaceId)).toEqual([[c, true, true]]);
  });
});

it('lets a waiting run in under the exclusive lock, and says so', async () => {
  await lineOf(1, 3, async (workspaceId, [a, b, c]) => {
    expect((await claimSlot(stack.db.prisma, { workspaceId, runId: a, grantKey: `${a}:claim` })).granted).toBe(true);
    // B asks and waits; A's ending lets it in, and says so. C, which has not asked, stays in line.
    expect((await claimSlot(stack.db.prisma, { workspaceId, runId: b, grantKey: `${b}:claim` })).granted).toBe(false);
    expect(await stack.db.prisma.$transaction((tx) => endSlot(tx, ending(workspaceId, a)))).toEqual([{ runId: b, temporalWorkflowId: b }]);
    expect(await holding(workspaceId)).toEqual([
      [b, true, true],
      [c, false, false],
    ]);
  });
});

it('is made again under the exclusive lock when a run began to wait while it waited for the shared one', async () => {
  await lineOf(1, 2, async (workspaceId, [a, b]) => {
    expect((await claimSlot(stack.db.prisma, { workspaceId, runId: a, grantKey: `${a}:claim` })).granted).toBe(true);
    // Held exclusively (as a claim holds it) while A's ending, which found no run waiting, waits for it.
    const exclusive = openTransaction((tx) => tx.$queryRaw`SELECT svc_lock_slots(${workspaceId}, ${slotLimits}::jsonb)`);
    await exclusive.ready;
    const shared = stack.db.prisma.$transaction((tx) => endSlot(tx, ending(workspaceId, a))).catch((e: unknown) => e);
    await waitingForSlotLock();
    // Meanwhile B asks, under that lock, and waits: A's ending must tell it, so it cannot end shared.
    exclusive.finish((tx) => claimSlot(tx, { workspaceId, runId: b, grantKey: `${b}:claim` }));
    expect(await exclusive.done).toEqual({ granted: false, alsoGranted: [] });
    expect(isEndSlotExclusively(await shared)).toBe(true);
    expect(await stack.db.prisma.$transaction((tx) => endSlot(tx, ending(workspaceId, a, { exclusive: true })))).toEqual([
      { runId: b, temporalWorkflowId: b },
    ]);
  });
});
