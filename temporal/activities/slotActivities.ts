import type { Client } from '@temporalio/client';
import type { Db } from '@svc/db';
import { workspaceLimits } from '@svc/domain';
import { acquireSlotSignal, slotsWorkflowId } from '../shared/slots';
import type { SlotRequest } from '../shared/slots';
import type { slotsWorkflow } from '../workflows/slotsWorkflow';

export interface SlotActivityDeps {
  prisma: Db;
  /** Starts (or signals) the per-workspace slot keeper, and checks which holders have ended. */
  temporal: { client: Client; taskQueue: string };
}

/** Activities behind the per-workspace concurrency limit (workflows/slotsWorkflow.ts). */
export function createSlotActivities(deps: SlotActivityDeps) {
  const { client, taskQueue } = deps.temporal;
  return {
    /** Queues the run at its workspace's slot keeper, starting the keeper if none runs. */
    async requestSlot({ workspaceId, runId }: { workspaceId: string; runId: string }): Promise<{ limit: number }> {
      const ws = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
      const run = await deps.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { seq: true } });
      const { concurrency: limit } = workspaceLimits(ws);
      await client.workflow.signalWithStart<typeof slotsWorkflow, [SlotRequest]>('slotsWorkflow', {
        workflowId: slotsWorkflowId(workspaceId),
        taskQueue,
        args: [{ workspaceId, holders: [], queue: [], limit }],
        signal: acquireSlotSignal,
        signalArgs: [{ runId, limit, seq: Number(run.seq) }],
      });
      return { limit };
    },

    /** Which of these runs' workflows have closed (e.g. terminated from the Temporal UI). */
    async closedRuns({ runIds }: { runIds: string[] }): Promise<string[]> {
      const closed: string[] = [];
      for (const runId of runIds) {
        try {
          const { status } = await client.workflow.getHandle(runId).describe();
          if (status.name !== 'RUNNING') closed.push(runId);
        } catch (err) {
          if ((err as Error).name === 'WorkflowNotFoundError') closed.push(runId);
          else throw err;
        }
      }
      return closed;
    },
  };
}
