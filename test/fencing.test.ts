import { createRunStore } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// A stale activity attempt can never move a run or a step backwards.
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
