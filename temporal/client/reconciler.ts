import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Client } from '@temporalio/client';

/** The Schedule's id: one per run task queue, visible (and pausable) on the UI's Schedules page. */
export function reconcilerScheduleId(taskQueue: string): string {
  return `svc-reconciler-${taskQueue}`;
}

/**
 * Makes sure the reconciler Schedule exists (every worker asks at start; the first one creates
 * it). It starts `reconcilerWorkflow` every `intervalMs`, skipping a tick while the previous
 * one still runs.
 */
export async function ensureReconciler(client: Client, opts: { taskQueue: string; intervalMs: number }): Promise<void> {
  const scheduleId = reconcilerScheduleId(opts.taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'reconcilerWorkflow',
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
