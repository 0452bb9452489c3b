import { allHandlersFinished, condition, workflowInfo } from '@temporalio/workflow';
import type { SlotRequest } from '../../shared/runTypes';
import { bookkeeping } from './activities';
import type { RunState } from './state';

/**
 * Past this many history events a run waiting for a slot continues as new, so a long queue
 * never grows one history toward Temporal's limits (the run's place in line is in PostgreSQL).
 */
export const QUEUED_HISTORY_LIMIT = 1_000;

/**
 * Waits, first come first served, for one of the workspace's slots: asks once (unless it has
 * `asked` already, keeping the slot state that asking set), then waits for
 * the signal a freed slot sends (no polling, so the history does not grow while it waits).
 * Resolves false when the run was cancelled meanwhile (an accepted cancellation wins even over
 * a slot granted in the same instant; ending the run gives the slot on). When the history has
 * grown long, it calls `continueAsNew` once no message handler is running.
 */
export async function acquireSlot(state: RunState, req: SlotRequest, continueAsNew: () => Promise<never>, asked = false): Promise<boolean> {
  if (!asked) {
    state.slot = 'waiting';
    const { granted } = await bookkeeping.claimSlot(req);
    if (granted && state.slot === 'waiting') state.slot = 'held';
  }
  const done = () => state.slot === 'held' || state.cancelRequested;
  const longHistory = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > QUEUED_HISTORY_LIMIT;
  while (!done()) {
    await condition(() => done() || longHistory());
    if (done()) break;
    await condition(() => done() || allHandlersFinished());
    if (!done()) await continueAsNew();
  }
  return !state.cancelRequested;
}
