import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { claimSlot, createRunStore } from '@svc/domain';
import type { FinishRun } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { recordWire } from './helpers/wire';

/**
 * A one-step run's end as its local activity writes it (runStore settleLocalStep), on the pool's
 * pipelined connections: the step's write and the run's ending go out in one round trip when the
 * ending needs nothing of the step as stored (no output expression, or one naming a step's
 * output); an output expression the sandbox evaluates waits for the write. The slot's release goes
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

it('sends the step and a ready ending together, the release with the COMMIT, and ends the run on its step as stored', async () => {
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
        end,
      );

    // Each run holds its slot before its step runs, as the step's activity takes it first.
    for (const runId of [ready, workedOut])
      expect((await claimSlot(db.sql, { runId, workspaceId, grantKey: `${runId}:claim` })).granted).toBe(true);
    wire.length = 0;
    const together = await settle(ready, ending(ready));
    expect(together.end?.status).toBe('succeeded');
    // BEGIN, the step's write, the ending and the run's read, before any answer; then the event
    // (its deliveries in the same statement), the slot's release (svc_end_slot) and the COMMIT, before any of their answers: two round trips in all, and the
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
    // Each run's slot was given back in its transaction.
    const slots = await db.pool.query('SELECT run_id FROM run_slots WHERE run_id = ANY($1)', [[ready, workedOut]]);
    expect(slots.rows).toEqual([]);
  });
});
