import { defineSignal } from '@temporalio/workflow';

/** The per-workspace slot keeper's workflow id: one per workspace, found by name. */
export function slotsWorkflowId(workspaceId: string): string {
  return `slots-${workspaceId}`;
}

/**
 * A run asks for a slot; `limit` is the workspace's current figure (a plan change applies
 * from here) and `seq` the run's creation order, so waiting runs are served in the order
 * they were started whatever order their requests arrive in.
 */
export const acquireSlotSignal = defineSignal<[SlotRequest]>('acquireSlot');

export interface SlotRequest {
  runId: string;
  limit: number;
  seq: number;
}
/** A run gives its slot back (or leaves the queue). */
export const releaseSlotSignal = defineSignal<[{ runId: string }]>('releaseSlot');
/** Sent by the slot keeper to the run it lets run. */
export const slotGrantedSignal = defineSignal('slotGranted');

export interface SlotsState {
  workspaceId: string;
  holders: string[];
  queue: { runId: string; seq: number }[];
  limit: number;
}
