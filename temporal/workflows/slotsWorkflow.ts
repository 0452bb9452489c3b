import { condition, continueAsNew, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { RunActivities } from '../activities';
import { acquireSlotSignal, releaseSlotSignal, slotGrantedSignal } from '../shared/slots';
import type { SlotsState } from '../shared/slots';

const { closedRuns } = proxyActivities<RunActivities>({ startToCloseTimeout: '30s', retry: { maximumInterval: '30s' } });

// How often holders are checked for runs that ended without giving their slot back (a
// workflow terminated by an operator): often while runs are waiting, rarely otherwise.
const SWEEP_CONTENDED_MS = 5_000;
const SWEEP_IDLE_MS = 5 * 60_000;
// Keep the history short: a keeper lives as long as its workspace.
const MAX_HISTORY_EVENTS = 2_000;

/**
 * The concurrency limit of one workspace (API.md §8): first come, first served. Runs ask
 * with a signal and wait for `slotGranted`; they give the slot back when they pause for a
 * review or end. Slots of runs that ended any other way are reclaimed by the sweep.
 */
export async function slotsWorkflow(state: SlotsState): Promise<void> {
  const holders = new Set(state.holders);
  const queue = [...state.queue];
  let limit = state.limit;
  let changed = false;

  setHandler(acquireSlotSignal, ({ runId, limit: newLimit, seq }) => {
    limit = newLimit;
    if (!holders.has(runId) && !queue.some((q) => q.runId === runId)) {
      const at = queue.findIndex((q) => q.seq > seq);
      queue.splice(at < 0 ? queue.length : at, 0, { runId, seq });
    }
    changed = true;
  });
  setHandler(releaseSlotSignal, ({ runId }) => {
    holders.delete(runId);
    const i = queue.findIndex((q) => q.runId === runId);
    if (i >= 0) queue.splice(i, 1);
    changed = true;
  });

  // Swept on a clock, not only when the keeper is quiet: in a busy workspace signals arrive
  // all the time, and a terminated holder must still lose its slot.
  let lastSweep = Date.now();
  for (;;) {
    while (holders.size < limit && queue.length > 0) {
      const { runId } = queue.shift()!;
      holders.add(runId);
      try {
        await getExternalWorkflowHandle(runId).signal(slotGrantedSignal);
      } catch {
        holders.delete(runId); // the run is gone: its slot goes to the next one
      }
    }
    if (workflowInfo().historyLength > MAX_HISTORY_EVENTS) {
      await continueAsNew<typeof slotsWorkflow>({ workspaceId: state.workspaceId, holders: [...holders], queue, limit });
    }
    const contended = queue.length > 0 && holders.size >= limit;
    const sweepEvery = contended ? SWEEP_CONTENDED_MS : SWEEP_IDLE_MS;
    if (holders.size > 0 && Date.now() - lastSweep >= sweepEvery) {
      for (const runId of await closedRuns({ runIds: [...holders] })) holders.delete(runId);
      lastSweep = Date.now();
      continue;
    }
    changed = false;
    const woken = await condition(() => changed, holders.size > 0 ? lastSweep + sweepEvery - Date.now() : SWEEP_IDLE_MS);
    if (!woken && holders.size === 0 && queue.length === 0) return; // idle: the next run starts a new keeper
  }
}
