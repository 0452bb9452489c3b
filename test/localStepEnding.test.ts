import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { createRunStore } from '@svc/domain';
import type { FinishRun } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { oneSlotWorkflow } from './helpers/runs';
import { recordWire } from './helpers/wire';

/**
 * A one-step run's end as its local activity writes it (runStore settleLocalStep), on the pool's
 * pipelined connections: the step's write and the run's ending go out in one round trip when the
 * ending needs nothing of the step as stored (no output expression, or one naming a step's
 * output); an output expression the sandbox evaluates waits for the write. The slot's claim goes
 * out last, with the COMMIT, so the workspace's slot lock is never held across a round trip.
 */
let stack: TestStack;
let db: DbHandle;
let wire: string[];
beforeAll(async () => {
  stack = await startStack();
  // One connection, so the transaction's statements are all on the recorded wire.
  db = createDb(stack.config.DATABASE_URL!, { max: 1 });
  wire = recordWire(db);
});
afterAll(async () => {
  await db.close();
  await stack.stop();
});

const FIRST_BATCH = ['send BEGIN', 'send WITH', 'send WITH', 'send SELECT', 'answer BEGIN'];

it('sends the step and a ready ending together, the claim with the COMMIT, and ends the run on its step as stored', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Ended together',
    slug: 'ended-together',
    steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hi' }" }],
    output: 'steps.shape.output',
  });
  // The runs' own workflows stay out of it: the store is driven by hand.
  await stack.withoutWorker(async () => {
    const start = async () => (await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } })).body.id as string;
    const [ready, workedOut] = [await start(), await start()];
    const store = createRunStore(db.prisma, { dispatchDelayMs: 30_000, sql: db.sql });
    const ending = (runId: string): FinishRun => ({
      runId,
      workspaceId,
      status: 'succeeded',
      output: { fromStep: 'shape' },
      error: null,
      grantKey: `${runId}:finish`,
    });
    const settle = (runId: string, end: FinishRun | (() => Promise<FinishRun>)) =>
      store.settleLocalStep(
        runId,
        'shape',
        {
          status: 'succeeded',
          attempts: 1,
          startedAt: new Date(),
          output: { greeting: 'hi' },
          fence: 1,
          readBack: typeof end === 'function',
        },
        { claim: { runId, workspaceId, grantKey: `${runId}:claim:0` }, ending: end },
      );

    wire.length = 0;
    const together = await settle(ready, ending(ready));
    expect(together.end?.status).toBe('succeeded');
    // BEGIN, the step's write, the ending and the run's read, before any answer; then the event
    // (its deliveries in the same statement), the slot's claim and release (one statement,
    // svc_end_slot) and the COMMIT, before any of their answers: two round trips in all, and the
    // slot's lock is held for none of them.
    expect(wire.slice(0, FIRST_BATCH.length)).toEqual(FIRST_BATCH);
    const lastBatch = ['send WITH', 'send SELECT', 'send COMMIT'];
    expect(wire.filter((w) => w.startsWith('send'))).toEqual([...FIRST_BATCH.slice(0, 4), ...lastBatch]);
    const lastSent = wire.indexOf('send WITH', FIRST_BATCH.length);
    expect(wire.slice(lastSent, lastSent + 4)).toEqual([...lastBatch, 'answer WITH']);

    // Worked out from the step as stored: the ending's statements wait for the write's answer.
    wire.length = 0;
    const waited = await settle(workedOut, async () => ending(workedOut));
    expect(waited.end?.status).toBe('succeeded');
    expect(wire.slice(0, 5)).toEqual(['send BEGIN', 'send WITH', 'answer BEGIN', 'answer WITH', 'send WITH']);

    for (const runId of [ready, workedOut]) {
      const run = (await stack.api('GET', `/api/v1/runs/${runId}`, { key })).body;
      expect([run.status, run.output, run.steps[0].status, run.steps[0].output]).toEqual([
        'succeeded',
        { greeting: 'hi' },
        'succeeded',
        { greeting: 'hi' },
      ]);
    }
    // Each run's slot was claimed and given back in its transaction.
    const slots = await db.pool.query('SELECT run_id FROM run_slots WHERE run_id = ANY($1)', [[ready, workedOut]]);
    expect(slots.rows).toEqual([]);
  });
});

it("claims a first step's slot with the COMMIT, and undoes the step when no slot is free", async () => {
  const { workspaceId, start } = await oneSlotWorkflow(stack, 'claimed-last');
  await stack.withoutWorker(async () => {
    const [first, second] = [await start(), await start()];
    const store = createRunStore(db.prisma, { dispatchDelayMs: 30_000, sql: db.sql });
    const settle = (runId: string) =>
      store.settleLocalStep(
        runId,
        'shape',
        { status: 'succeeded', attempts: 1, startedAt: new Date(), output: 'x', fence: 1, readBack: true },
        { claim: { runId, workspaceId, grantKey: `${runId}:claim:0` } },
      );
    const stateOf = async (runId: string) => {
      const step = await db.pool.query("SELECT status, output FROM run_steps WHERE run_id = $1 AND key = 'shape'", [runId]);
      const slot = await db.pool.query('SELECT asked, holding FROM run_slots WHERE run_id = $1', [runId]);
      return { step: step.rows[0], slot: slot.rows };
    };

    // The one slot is free: the step's write, then the claim with the COMMIT behind it.
    wire.length = 0;
    const granted = await settle(first);
    expect([granted.claim?.granted, granted.step]).toEqual([true, { output: 'x', status: 'succeeded' }]);
    expect(wire.filter((w) => w.startsWith('send'))).toEqual(['send BEGIN', 'send WITH', 'send SELECT', 'send COMMIT']);
    expect(wire.slice(wire.indexOf('send SELECT'), wire.indexOf('send SELECT') + 3)).toEqual([
      'send SELECT',
      'send COMMIT',
      'answer SELECT',
    ]);
    expect(await stateOf(first)).toEqual({ step: { status: 'succeeded', output: 'x' }, slot: [{ asked: true, holding: true }] });

    // None is free: the claim's failure undoes the transaction (the COMMIT answers ROLLBACK), and
    // the run only keeps its place in line, from the claim made alone.
    const refused = await settle(second);
    expect([refused.claim?.granted, refused.step]).toEqual([false, null]);
    expect(await stateOf(second)).toEqual({ step: { status: 'pending', output: null }, slot: [{ asked: true, holding: false }] });
  });
});
