import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { RunActivities } from '../activities';

const { reconcileRuns } = proxyLocalActivities<RunActivities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 3 } });

/**
 * Started by the reconciler Schedule (client/reconciler.ts) on every deployment. Terminate runs
 * no workflow code, so svc notices from outside: runs whose workflow was terminated (or timed
 * out) are settled `failed`, and slots held by runs that ended without giving them back are
 * handed to the next in line. Settling is idempotent, so overlapping copies never double-settle.
 * It also sweeps rows that can no longer matter (expired idempotency keys, sessions, links).
 */
export async function reconcilerWorkflow(): Promise<Awaited<ReturnType<RunActivities['reconcileRuns']>>> {
  const { workflowId, runId } = workflowInfo();
  return reconcileRuns({ grantKey: `${workflowId}:${runId}` });
}
