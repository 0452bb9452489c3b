// runWorkflow with fake activities: the `wait: true` update (temporal/workflows/run/state.ts).
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { waitForSettleUpdate } from '@svc/temporal';
import { waitFor } from '../helpers/fixtures';
import { workflowHarness } from './harness';

const { withWorker } = workflowHarness();
const oneStep = { name: 'W', slug: 'w', steps: [{ key: 'a', type: 'transform', expression: "'ran'" }] };
const httpStep = { name: 'H', slug: 'h', steps: [{ key: 'call', type: 'http', method: 'GET', url: 'https://example.test/' }] };
const review = {
  name: 'R',
  slug: 'r',
  steps: [{ key: 'approve', type: 'review', title: 'Refund?', assignees: ['ops@example.test'] }],
};

/** How many of the run's timers were started, fired and cancelled, from its history. */
async function timers(client: Client, workflowId: string) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    started: events.filter((e) => e.timerStartedEventAttributes).length,
    fired: events.filter((e) => e.timerFiredEventAttributes).length,
    cancelled: events.filter((e) => e.timerCanceledEventAttributes).length,
  };
}

describe('runWorkflow `wait: true` update (fake activities)', () => {
  it("answers the run's status once the caller's wait is over, by its own timer", async () => {
    await withWorker({ claimSlot: async () => ({ granted: false }) }, async ({ client, start }) => {
      const handle = await start(oneStep);
      expect(await handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 300 }] })).toBe('queued');
      expect(await timers(client, handle.workflowId)).toEqual({ started: 1, fired: 1, cancelled: 0 });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate();
    });
  });

  it('answers once the run settles, and cancels its timer', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const executeStep = async () => {
      await released;
      return { status: 'succeeded' };
    };
    await withWorker({ executeStep }, async ({ client, start, fakes }) => {
      const handle = await start(httpStep);
      const answer = handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 60_000 }] });
      await waitFor(
        async () => fakes.executeStep.mock.calls.length,
        (n) => n === 1,
      );
      await waitFor(
        () => timers(client, handle.workflowId),
        (t) => t.started === 1,
      );
      release();
      expect(await answer).toBe('succeeded');
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(await timers(client, handle.workflowId)).toEqual({ started: 1, fired: 0, cancelled: 1 });
    });
  });

  it('answers at once for a run already waiting for a review, leaving no timer behind', async () => {
    await withWorker({}, async ({ client, start }) => {
      const handle = await start(review);
      expect(await handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 60_000 }] })).toBe('waiting_for_review');
      const before = await timers(client, handle.workflowId);
      expect(await handle.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 60_000 }] })).toBe('waiting_for_review');
      // Started and cancelled in one workflow task, so neither reaches the history.
      expect(await timers(client, handle.workflowId)).toEqual(before);
      await handle.terminate();
    });
  });

  it('fails a wait in flight when the run is cancelled through Temporal, and the run ends cancelled', async () => {
    await withWorker({ claimSlot: async () => ({ granted: false }) }, async ({ start, fakes }) => {
      const handle = await start(oneStep);
      const wait = await handle.startUpdate(waitForSettleUpdate, {
        args: [{ timeoutMs: 60_000 }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await handle.cancel();
      await expect(wait.result()).rejects.toThrow(WorkflowUpdateFailedError);
      await expect(handle.result()).rejects.toThrow();
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'cancelled' }));
    });
  });
});
