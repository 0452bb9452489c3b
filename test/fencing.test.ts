import { claimSlot, createRunStore, releaseSlots } from '@svc/domain';
import { oneSlotWorkflow } from './helpers/runs';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// Issue 14 item 13: a stale activity attempt can never move a run or a step backwards.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

it('keeps a settled step settled, and a later attempt’s result, whatever a stale attempt writes late', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Fenced',
    slug: 'fenced',
    steps: [
      { key: 'a', type: 'transform', expression: "'a'" },
      { key: 'b', type: 'transform', expression: "'b'" },
    ],
  });
  // The run's own workflow stays out of it: the store is driven by hand.
  await stack.withoutWorker(async () => {
    const run = (await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } })).body;
    const store = createRunStore(stack.db.prisma, { dispatchDelayMs: 30_000 });
    const step = async (k: string) => stack.db.prisma.runStep.findUniqueOrThrow({ where: { runId_key: { runId: run.id, key: k } } });

    // Attempt 2 ran and succeeded.
    await store.startStep(run.id, 'a', 2);
    await store.finishStep(run.id, 'a', { status: 'succeeded', attempts: 2, output: 'from attempt 2', fence: 2 });
    // Attempt 1, stale, reports late: it starts, fails, and finishes failed.
    await store.startStep(run.id, 'a', 1);
    await store.stepAttemptFailed(run.id, 'a', { code: 'http_timeout', message: 'stale' }, 1);
    await store.finishStep(run.id, 'a', {
      status: 'failed',
      attempts: 1,
      output: 'from attempt 1',
      error: { code: 'x', message: 'stale' },
      fence: 1,
    });
    expect(await step('a')).toMatchObject({ status: 'succeeded', attempts: 2, output: 'from attempt 2', error: null });

    // A later attempt's failure record is kept from an earlier attempt's start.
    await store.startStep(run.id, 'b', 3);
    await store.stepAttemptFailed(run.id, 'b', { code: 'http_status', message: 'attempt 3' }, 3);
    await store.startStep(run.id, 'b', 2);
    expect(await step('b')).toMatchObject({ status: 'running', attempts: 3, error: { code: 'http_status', message: 'attempt 3' } });

    // A cancelled run's steps stay cancelled when the attempt in flight finishes after all.
    await store.finishRun({ runId: run.id, workspaceId, status: 'cancelled', output: null, error: null, grantKey: `${run.id}:test` });
    await store.finishStep(run.id, 'b', { status: 'succeeded', attempts: 3, output: 'too late', fence: 3 });
    expect(await step('b')).toMatchObject({ status: 'cancelled', output: null });
    // And the run itself never leaves its final status.
    await store.startStep(run.id, 'b', 4);
    const after = (await stack.api('GET', `/api/v1/runs/${run.id}`, { key })).body;
    expect([after.status, after.steps[1].status]).toEqual(['cancelled', 'cancelled']);
  });
});

it("writes a first local step's end with its slot's claim, or only the run's place in line: when no slot is free, and when one comes free after the transaction was undone", async () => {
  const { workspaceId, start } = await oneSlotWorkflow(stack, 'claimed');
  // The runs' own workflows stay out of it: the store is driven by hand.
  await stack.withoutWorker(async () => {
    const [holder, waiting] = [await start(), await start()];
    const prisma = stack.db.prisma;
    // Runs `onUndo` once, after a transaction of the store was rolled back: a slot that comes
    // free between the undone transaction and the claim made alone.
    let onUndo: (() => Promise<unknown>) | undefined;
    const db = new Proxy(prisma, {
      get(target, prop) {
        if (prop !== '$transaction') {
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (fn: Parameters<typeof prisma.$transaction>[0]) => {
          try {
            return await target.$transaction(fn);
          } catch (err) {
            const undo = onUndo;
            onUndo = undefined;
            await undo?.();
            throw err;
          }
        };
      },
    });
    const store = createRunStore(db, { dispatchDelayMs: 30_000 });
    const settle = () =>
      store.settleLocalStep(
        waiting,
        'shape',
        { status: 'succeeded', attempts: 1, output: 'x', fence: 1, readBack: true },
        { claim: { runId: waiting, workspaceId, grantKey: `${waiting}:claim` } },
      );
    const rowsOf = async () => ({
      step: await prisma.runStep.findUniqueOrThrow({ where: { runId_key: { runId: waiting, key: 'shape' } } }),
      slot: await prisma.$queryRaw<
        Array<{ asked: boolean; holding: boolean }>
      >`SELECT asked, holding FROM run_slots WHERE run_id = ${waiting}`,
    });
    expect((await claimSlot(prisma, { runId: holder, workspaceId, grantKey: `${holder}:claim` })).granted).toBe(true);

    // No slot free: the step's write is undone, and only the run's place in line is kept.
    const refused = await settle();
    expect([refused.claim?.granted, refused.step]).toEqual([false, null]);
    const queued = await rowsOf();
    expect([queued.step.status, queued.step.output, queued.slot]).toEqual(['pending', null, [{ asked: true, holding: false }]]);

    // A slot comes free once the transaction is undone: the claim made alone gets it, and the
    // step is written in a second transaction, once.
    onUndo = () => releaseSlots(prisma, { workspaceId, runIds: [holder], grantKey: `${holder}:end` });
    const { claim: granted, step } = await settle();
    expect([granted?.granted, step]).toEqual([true, { output: 'x', status: 'succeeded' }]);
    expect(onUndo).toBeUndefined();
    const letIn = await rowsOf();
    expect([letIn.step.status, letIn.step.output, letIn.step.attempts, letIn.slot]).toEqual([
      'succeeded',
      'x',
      1,
      [{ asked: true, holding: true }],
    ]);
  });
});
