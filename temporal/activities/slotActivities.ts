import { claimSlot } from '@svc/domain';
import type { SlotRequest } from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';

export interface SlotActivityDeps {
  /** The slot's transaction runs on the prepared statements (claimSlot takes Prisma too). */
  sql: Parameters<typeof claimSlot>[0];
}

/** Joins the line (once); true when the run holds a slot. The runs let in with it are told. */
export async function claimAndTell(deps: SlotActivityDeps, after: AfterCommitActions, req: SlotRequest): Promise<boolean> {
  const claim = await claimSlot(deps.sql, req);
  await after.tell(req.workspaceId, claim.alsoGranted, req.grantKey);
  return claim.granted;
}

/** Activities behind the per-workspace concurrency limit (domain/runs/slots.ts). */
export function createSlotActivities(deps: SlotActivityDeps, after: AfterCommitActions) {
  return {
    /** Joins the line (once); true when the run holds a slot, else it waits for the signal. */
    async claimSlot(args: SlotRequest): Promise<{ granted: boolean }> {
      return { granted: await claimAndTell(deps, after, args) };
    },
  };
}
