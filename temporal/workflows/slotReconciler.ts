import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { RunActivities } from '../activities';

const { reclaimSlots } = proxyLocalActivities<RunActivities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 3 } });

/**
 * Started by the slot reconciler Schedule (client/slotReconciler.ts): runs wait for a slot by
 * signal only, so slots held by runs that ended without giving them back (terminated from the
 * Temporal UI) are reclaimed here and handed to the next in line.
 */
export async function slotReconcilerWorkflow(): Promise<{ reclaimed: number }> {
  const { workflowId, runId } = workflowInfo();
  return reclaimSlots({ grantKey: `${workflowId}:${runId}` });
}
