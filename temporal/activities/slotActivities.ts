import { claimSlot } from '@svc/domain';
import type { SlotRequest } from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';

export interface SlotActivityDeps {
  prisma: Parameters<typeof claimSlot>[0];
}

/** Activities behind the per-workspace concurrency limit (API.md §8; domain/runs/slots.ts). */
export function createSlotActivities(deps: SlotActivityDeps, after: AfterCommitActions) {
  return {
    /** Joins the line (once); true when the run holds a slot, else it waits for the signal. */
    async claimSlot(args: SlotRequest): Promise<{ granted: boolean }> {
      const claim = await claimSlot(deps.prisma, args);
      await after.tell(args.workspaceId, claim.alsoGranted, args.grantKey);
      return { granted: claim.granted };
    },
  };
}
