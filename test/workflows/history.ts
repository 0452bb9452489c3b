import type { Client } from '@temporalio/client';

/** What one finished workflow execution cost Temporal: its history, counted by kind. */
export interface HistoryShape {
  events: number;
  bytes: number;
  workflowTasks: number;
  activities: number;
  localActivities: number;
  timers: number;
  updates: number;
}

export async function historyShape(client: Client, workflowId: string): Promise<HistoryShape> {
  const handle = client.workflow.getHandle(workflowId);
  const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
  const events = history.events ?? [];
  const count = (has: (e: (typeof events)[number]) => unknown) => events.filter((e) => Boolean(has(e))).length;
  return {
    events: events.length,
    // int64 in the proto (a Long): through its string form.
    bytes: Number(String(description.raw.workflowExecutionInfo?.historySizeBytes ?? Number.NaN)),
    workflowTasks: count((e) => e.workflowTaskCompletedEventAttributes),
    activities: count((e) => e.activityTaskScheduledEventAttributes),
    localActivities: count((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    timers: count((e) => e.timerStartedEventAttributes),
    updates: count((e) => e.workflowExecutionUpdateAcceptedEventAttributes),
  };
}
