import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Client } from '@temporalio/client';

/** The Schedule's id: one per run task queue, visible (and pausable) in the Temporal UI. */
export function slotReconcilerScheduleId(taskQueue: string): string {
  return `svc-slot-reconciler-${taskQueue}`;
}

/**
 * Makes sure the slot reconciler Schedule exists (every worker asks at start; the first one
 * creates it). It starts `slotReconcilerWorkflow` every `intervalMs`, skipping a tick while
 * the previous one still runs.
 */
export async function ensureSlotReconciler(client: Client, opts: { taskQueue: string; intervalMs: number }): Promise<void> {
  const scheduleId = slotReconcilerScheduleId(opts.taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'slotReconcilerWorkflow',
        workflowId: scheduleId,
        taskQueue: opts.taskQueue,
        args: [],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    // Already there: keep its interval in step with the configuration.
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every: opts.intervalMs }] } }));
  }
}
