import type { Db } from '@svc/db';
import { AppError } from '../errors';
import type { RunControl } from './launcher';
import { getRun } from './readRuns';
import type { RunView } from './runView';

function notCancellable(status: string): AppError {
  return new AppError('run_not_cancellable', `Only queued runs and runs waiting for review can be cancelled; this run is ${status}`, {
    extensions: { run_status: status },
  });
}

/**
 * Cancels a queued run or one waiting for review. The decision is taken
 * inside the run's workflow, so a 200 always means the run ends `cancelled`.
 */
export async function cancelRun(deps: { prisma: Db; control: RunControl }, args: { workspaceId: string; runId: string }): Promise<RunView> {
  const run = await deps.prisma.run.findFirst({
    where: { id: args.runId, workspaceId: args.workspaceId },
    select: { status: true, temporalWorkflowId: true },
  });
  if (!run) throw new AppError('run_not_found', `Run ${args.runId} not found`);
  if (run.status === 'cancelled') return getRun(deps.prisma, args);
  if (run.status === 'succeeded' || run.status === 'failed') throw notCancellable(run.status);
  const outcome = await deps.control.cancel({ runId: args.runId, temporalWorkflowId: run.temporalWorkflowId });
  const after = await getRun(deps.prisma, args);
  if (outcome === 'closed' && after.status !== 'cancelled') throw notCancellable(after.status);
  return after;
}
