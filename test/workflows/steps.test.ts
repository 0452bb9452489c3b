// runWorkflow with fake activities: which bookkeeping it does for steps that succeed, fail or jump.
import { ApplicationFailure } from '@temporalio/common';
import { historyShape, workflowHarness } from './harness';

const { withWorker } = workflowHarness();
const transform = (key: string) => ({ key, type: 'transform', expression: "'x'" });

describe('runWorkflow steps (fake activities)', () => {
  it('settles a one-step transform run in at most 3 workflow tasks, with no regular activity', async () => {
    await withWorker({}, async ({ client, start, calls, fakes }) => {
      const handle = await start({ name: 'T', slug: 't', steps: [transform('shape')] });
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(calls()).toEqual(['claimSlot', 'executeStep', 'finishRun']);
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'succeeded', lastStepKey: 'shape' }));
      const shape = await historyShape(client, handle.workflowId);
      // At most 3 workflow tasks and no regular activity.
      expect(shape.workflowTasks).toBeLessThanOrEqual(3);
      // The slot is taken in the step's own local activity; the fake ends the run in a second.
      expect([shape.activities, shape.localActivities]).toEqual([0, 2]);
    });
  });

  it('ends the run failed with the error of a step that failed, running no later step', async () => {
    const error = { code: 'http_status', message: 'The server answered 503' };
    await withWorker({ executeStep: async () => ({ status: 'failed', error }) }, async ({ start, calls, fakes }) => {
      const handle = await start({ name: 'F', slug: 'f', steps: [transform('call'), transform('after')] });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(calls()).toEqual(['claimSlot', 'executeStep', 'finishRun']);
      expect(fakes.finishRun).toHaveBeenCalledWith(
        expect.objectContaining({ status: 'failed', lastStepKey: null, error: { ...error, step_key: 'call' } }),
      );
    });
  });

  it('records the failure of a step whose activity itself failed, then fails the run', async () => {
    const boom = async () => {
      throw ApplicationFailure.nonRetryable('worker lost', 'StepFailedPermanently');
    };
    await withWorker({ executeStep: boom }, async ({ start, calls, fakes }) => {
      const handle = await start({ name: 'B', slug: 'b', steps: [transform('call')] });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(calls()).toEqual(['claimSlot', 'executeStep', 'finishStep', 'finishRun']);
      const error = { code: 'step_failed', message: 'worker lost' };
      expect(fakes.finishStep).toHaveBeenCalledWith(expect.objectContaining({ stepKey: 'call', status: 'failed', error }));
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'failed', error: { ...error, step_key: 'call' } }));
    });
  });

  it("keeps the code a step's permanent failure carries (a runaway `if` of a delay)", async () => {
    const runaway = async () => {
      throw ApplicationFailure.create({
        type: 'StepFailedPermanently',
        message: 'Expression used too much memory',
        nonRetryable: true,
        details: [{ code: 'expression_too_large' }],
      });
    };
    await withWorker({ beginStep: runaway }, async ({ start, fakes }) => {
      const handle = await start({ name: 'D', slug: 'd', steps: [{ key: 'pause', type: 'delay', duration: '1s', if: 'true' }] });
      expect(await handle.result()).toEqual({ status: 'failed' });
      const error = { code: 'expression_too_large', message: 'Expression used too much memory' };
      expect(fakes.finishStep).toHaveBeenCalledWith(expect.objectContaining({ stepKey: 'pause', status: 'failed', error }));
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'failed', error: { ...error, step_key: 'pause' } }));
    });
  });

  it('skips the steps a condition jumps over, and runs the target', async () => {
    const jump = async (a: { step: { key: string } }) =>
      a.step.key === 'check' ? { status: 'succeeded', jumpTo: 'small' } : { status: 'succeeded' };
    await withWorker({ executeStep: jump }, async ({ start, calls, fakes }) => {
      const steps = [
        { key: 'check', type: 'condition', expression: 'input.amount > 100', else: 'small' },
        transform('big'),
        transform('bigger'),
        transform('small'),
      ];
      const handle = await start({ name: 'C', slug: 'c', steps });
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(calls()).toEqual(['claimSlot', 'executeStep', 'skipSteps', 'executeStep', 'finishRun']);
      expect(fakes.skipSteps).toHaveBeenCalledWith({ runId: handle.workflowId, stepKeys: ['big', 'bigger'] });
      expect(fakes.executeStep.mock.calls.map(([a]) => a.step.key)).toEqual(['check', 'small']);
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ lastStepKey: 'small' }));
    });
  });
});
