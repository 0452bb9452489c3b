import type { Client } from '@temporalio/client';
import { claimSlot, holdersWhereRunsWait, releaseSlots } from '@svc/domain';
import type { SlotGrant } from '@svc/domain';
import type { SlotRequest } from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';

const DESCRIBE_BATCH = 20;

export interface SlotActivityDeps {
  prisma: Parameters<typeof claimSlot>[0];
  temporal: { client: Client };
}

/** Activities behind the per-workspace concurrency limit (API.md §8; domain/runs/slots.ts). */
export function createSlotActivities(deps: SlotActivityDeps, after: AfterCommitActions) {
  const { client } = deps.temporal;

  /** Which of these holders' workflows have closed (e.g. terminated from the Temporal UI). */
  async function closedHolders(holders: SlotGrant[]): Promise<string[]> {
    const closed: string[] = [];
    for (let i = 0; i < holders.length; i += DESCRIBE_BATCH) {
      await Promise.all(
        holders.slice(i, i + DESCRIBE_BATCH).map(async (h) => {
          try {
            const { status } = await client.workflow.getHandle(h.temporalWorkflowId).describe();
            if (status.name !== 'RUNNING') closed.push(h.runId);
          } catch (err) {
            // Gone from Temporal (a grant to a run not started yet is handed on when told).
            if ((err as Error).name === 'WorkflowNotFoundError') closed.push(h.runId);
            else throw err;
          }
        }),
      );
    }
    return closed;
  }

  return {
    /** Joins the line (once); true when the run holds a slot, else it waits for the signal. */
    async claimSlot(args: SlotRequest): Promise<{ granted: boolean }> {
      const claim = await claimSlot(deps.prisma, args);
      await after.tell(args.workspaceId, claim.alsoGranted, args.grantKey);
      return { granted: claim.granted };
    },

    /**
     * The slot reconciler (run by the reconcile workflow on a Temporal Schedule): where runs
     * wait, holders whose workflow has closed without giving their slot back (terminated from
     * the Temporal UI) lose it to the next in line. Returns how many slots were reclaimed.
     */
    async reclaimSlots(args: { grantKey: string }): Promise<{ reclaimed: number }> {
      let reclaimed = 0;
      for (const { workspaceId, holders } of await holdersWhereRunsWait(deps.prisma)) {
        const dead = await closedHolders(holders);
        if (dead.length === 0) continue;
        reclaimed += dead.length;
        const grantKey = `${args.grantKey}:${workspaceId}`;
        await after.tell(workspaceId, await releaseSlots(deps.prisma, { workspaceId, runIds: dead, grantKey }), grantKey);
      }
      return { reclaimed };
    },
  };
}
