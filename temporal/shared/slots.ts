import { defineSignal } from '@temporalio/workflow';

/** Sent to a waiting run when a slot of its workspace's concurrency limit was given to it. */
export const slotGrantedSignal = defineSignal('slotGranted');
