// runWorkflow with fake activities: a run waiting for a concurrency slot (temporal/workflows/run/slots.ts).
import type { Client, WorkflowHandle } from '@temporalio/client';
import { cancelRunUpdate, runStatusQuery } from '@svc/temporal';
import { slotGrantedSignal } from '../../temporal/shared/slots';
import { QUEUED_HISTORY_LIMIT } from '../../temporal/workflows/run/slots';
import { waitFor } from '../helpers/fixtures';
import { growHistory, historyShape, workflowHarness } from './harness';
import type { Fakes } from './harness';

const { withWorker } = workflowHarness();
const oneStep = { name: 'Q', slug: 'q', steps: [{ key: 'a', type: 'transform', expression: "'ran'" }] };
const noSlot = { claimSlot: async () => ({ granted: false }) };

const claims = (fakes: Fakes, n: number) =>
  waitFor(
    async () => fakes.claimSlot.mock.calls.length,
    (c) => c >= n,
  );

/** The run's history once it has asked for a slot and that workflow task is recorded. */
async function queued(client: Client, handle: WorkflowHandle, fakes: Fakes) {
  await claims(fakes, 1);
  return waitFor(
    () => historyShape(client, handle.workflowId),
    (shape) => shape.localActivities === 1,
  );
}

describe('runWorkflow waiting for a slot (fake activities)', () => {
  it('waits for the slotGranted signal, with no timer in its history, then runs', async () => {
    await withWorker(noSlot, async ({ client, start, calls, fakes }) => {
      const handle = await start(oneStep);
      expect((await queued(client, handle, fakes)).timers).toBe(0);
      expect(await handle.query(runStatusQuery)).toBe('queued');
      await handle.signal(slotGrantedSignal);
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      expect(calls()).toEqual(['claimSlot', 'executeStep', 'finishRun']);
      // It asked once, in its first step's activity (which did not run the step), then only waited.
      expect(fakes.executeStep.mock.calls.map(([args]) => 'claim' in args)).toEqual([true, false]);
      expect(fakes.claimSlot).toHaveBeenCalledTimes(1);
      expect((await historyShape(client, handle.workflowId)).timers).toBe(0);
    });
  });

  it('ends a queued run cancelled, before any step, when a cancel is accepted', async () => {
    await withWorker(noSlot, async ({ client, start, calls, fakes }) => {
      const handle = await start(oneStep);
      await queued(client, handle, fakes);
      expect(await handle.executeUpdate(cancelRunUpdate)).toBe('cancelled');
      expect(await handle.result()).toEqual({ status: 'cancelled' });
      expect(calls()).toEqual(['claimSlot', 'finishRun']);
      expect(fakes.finishRun).toHaveBeenCalledWith(expect.objectContaining({ status: 'cancelled', lastStepKey: null }));
    });
  });

  it('continues as new once its history passes QUEUED_HISTORY_LIMIT, and the next execution takes the grant', async () => {
    await withWorker(noSlot, async ({ client, start, calls, fakes }) => {
      const handle = await start(oneStep);
      await queued(client, handle, fakes);
      const first = client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      const updates = await growHistory(first);
      const ended = await first.describe();
      expect(ended.status.name).toBe('CONTINUED_AS_NEW');
      expect(ended.historyLength).toBeGreaterThan(QUEUED_HISTORY_LIMIT);
      expect(updates).toBeGreaterThan(QUEUED_HISTORY_LIMIT / 20);

      await claims(fakes, 2);
      const latest = client.workflow.getHandle(handle.workflowId);
      await latest.signal(slotGrantedSignal);
      expect(await handle.result()).toEqual({ status: 'succeeded' });
      const next = await latest.describe();
      expect(next.runId).not.toBe(handle.firstExecutionRunId);
      expect(next.historyLength).toBeLessThan(30);
      expect(calls()).toEqual(['claimSlot', 'claimSlot', 'executeStep', 'finishRun']);
      // The new execution asks under a grant key of its own.
      expect(fakes.claimSlot.mock.calls[1][0].grantKey).not.toBe(fakes.claimSlot.mock.calls[0][0].grantKey);
    });
  });
});
