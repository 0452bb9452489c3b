import { sleep } from '@temporalio/workflow';

/**
 * A workflow-task boundary before the side effects of a decision an update brought (a review
 * decision, a cancel). Updates enter history only when the task that accepted them completes,
 * and local activities run inside that task: if the task then fails (the server refuses to let
 * a workflow close while a new message waits), a local activity would already have written a
 * decision that the retried task never takes. A 1 ms timer makes the task complete first.
 */
export async function commitDecision(): Promise<void> {
  await sleep(1, { summary: 'record the decision in history first' });
}
