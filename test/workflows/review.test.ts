// runWorkflow with fake activities: a review step (temporal/workflows/run/review.ts).
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { decideReviewUpdate, runStatusQuery, waitForSettleUpdate } from '@svc/temporal';
import { slotGrantedSignal } from '../../temporal/shared/slots';
import { waitFor } from '../helpers/fixtures';
import { growHistory, workflowHarness } from './harness';

const { withWorker } = workflowHarness();
const flow = (review: Record<string, unknown> = {}) => ({
  name: 'R',
  slug: 'r',
  steps: [
    { key: 'approve', type: 'review', title: 'Refund?', assignees: ['ops@example.test'], ...review },
    { key: 'pay', type: 'transform', expression: "'paid'" },
  ],
});

describe('runWorkflow review steps (fake activities)', () => {
  it('a decision resolves the review, finishes its step, then the run goes on with a slot', async () => {
    await withWorker({}, async ({ start, calls, fakes }) => {
      const handle = await start(flow());
      expect(await handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 30_000 }] })).toBe('waiting_for_review');
      const decision = { decision: 'approved' as const, decidedBy: 'ana@example.test', comment: 'fine' };
      const { reviewId } = await handle.executeUpdate(decideReviewUpdate, { args: [decision] });
      expect(reviewId).toMatch(/^rev_[0-9a-f]{32}$/);
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(calls()).toEqual(['claimSlot', 'openReview', 'resolveReview', 'finishStep', 'claimSlot', 'executeStep', 'finishRun']);
      expect(fakes.openReview).toHaveBeenCalledWith(
        expect.objectContaining({ reviewId, step: expect.objectContaining({ key: 'approve' }) }),
      );
      expect(fakes.notifyReviewers).toHaveBeenCalledWith({ reviewId });
      expect(fakes.resolveReview).toHaveBeenCalledWith(
        expect.objectContaining({ reviewId, status: 'approved', decision: 'approved', decidedBy: 'ana@example.test', comment: 'fine' }),
      );
      const outcome = await fakes.resolveReview.mock.results[0].value;
      expect(fakes.finishStep).toHaveBeenCalledWith({ runId: handle.workflowId, stepKey: 'approve', status: 'succeeded', output: outcome });
    });
  });

  it.each([
    ['approve', 'approved', 'succeeded'],
    ['reject', 'rejected', 'failed'],
  ])('a review that times out with on_timeout %s expires %s and the run ends %s', async (onTimeout, decision, runStatus) => {
    await withWorker({}, async ({ start, calls, fakes }) => {
      const handle = await start(flow({ timeout: '1s', on_timeout: onTimeout }));
      expect(await handle.result()).toEqual({ status: runStatus });
      expect(fakes.resolveReview).toHaveBeenCalledWith(
        expect.objectContaining({ status: 'expired', decision, decidedBy: null, comment: null }),
      );
      if (runStatus === 'succeeded') {
        expect(calls()).toEqual(['claimSlot', 'openReview', 'resolveReview', 'finishStep', 'claimSlot', 'executeStep', 'finishRun']);
        expect(fakes.finishStep).toHaveBeenCalledWith(expect.objectContaining({ stepKey: 'approve', status: 'succeeded' }));
        return;
      }
      const error = { code: 'review_expired', message: 'The review "Refund?" expired without a decision' };
      expect(calls()).toEqual(['claimSlot', 'openReview', 'resolveReview', 'finishStep', 'finishRun']);
      expect(fakes.finishStep).toHaveBeenCalledWith(expect.objectContaining({ stepKey: 'approve', status: 'failed', error }));
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'failed', error: { ...error, step_key: 'approve' } }));
      expect(await handle.query(runStatusQuery)).toBe('failed');
    });
  });

  it('a run that waits long for a slot after its review continues as new from the next step', async () => {
    let claimsMade = 0;
    const firstClaimOnly = async () => ({ granted: claimsMade++ === 0 });
    await withWorker({ claimSlot: firstClaimOnly }, async ({ client, start, calls, fakes }) => {
      const handle = await start(flow());
      expect(await handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 30_000 }] })).toBe('waiting_for_review');
      const { reviewId } = await handle.executeUpdate(decideReviewUpdate, { args: [{ decision: 'approved' }] });
      await waitFor(
        async () => claimsMade,
        (n) => n === 2,
      );
      await growHistory(client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId), 'running');

      await waitFor(
        async () => claimsMade,
        (n) => n === 3,
      );
      const latest = client.workflow.getHandle(handle.workflowId);
      const again = latest.executeUpdate(decideReviewUpdate, { args: [{ reviewId, decision: 'rejected' }] });
      await expect(again).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
      await expect(again).rejects.toMatchObject({ cause: { type: 'review_already_decided' } });
      await latest.signal(slotGrantedSignal);
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(calls()).toEqual([
        'claimSlot',
        'openReview',
        'resolveReview',
        'finishStep',
        'claimSlot',
        'claimSlot',
        'executeStep',
        'finishRun',
      ]);
      expect(fakes.executeStep.mock.calls.map(([a]) => a.step.key)).toEqual(['pay']);
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'succeeded', lastStepKey: 'pay' }));
    });
  });
});
