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
 * Cancels a queued run or one waiting for review (API.md §4.3). The decision is taken
 * inside the run's workflow, so a 200 always means the run ends `cancelled`.
 */
export async function cancelRun(deps: { prisma: Db; control: RunControl }, args: { workspaceId: string; runId: string }): Promise<RunView> {
  const run = await getRun(deps.prisma, args);
  if (run.status === 'cancelled') return run;
  if (run.status === 'succeeded' || run.status === 'failed') throw notCancellable(run.status);
  const outcome = await deps.control.cancel(args.runId);
  const after = await getRun(deps.prisma, args);
  if (outcome === 'closed' && after.status !== 'cancelled') throw notCancellable(after.status);
  return after;
}
