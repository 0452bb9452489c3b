import type { Db } from '@svc/db';
import { workspaceLimits } from '../workspaces/limits';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** What a claim found: whether the run holds a slot, and which waiting runs it let in too. */
export interface SlotClaim {
  granted: boolean;
  /** Runs (other than this one) given a slot by this call: each must be told. */
  alsoGranted: string[];
  /** When the run waits first in line: the runs holding the slots, to check for dead ones. */
  holdersToCheck: string[];
}

/**
 * Takes the workspace's lock: every change to its slots happens one at a time, whichever
 * worker makes it, so the limit holds across all of them (API.md §8). NO KEY UPDATE does not
 * block the key-share locks of foreign keys, so runs keep being created meanwhile.
 */
async function lockWorkspace(tx: Tx, workspaceId: string): Promise<number> {
  const [ws] = await tx.$queryRaw<{ plan: string; rate_limit_per_min: number | null; concurrency: number | null }[]>`
    SELECT plan, rate_limit_per_min, concurrency FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;
  if (!ws) return 0;
  return workspaceLimits({ plan: ws.plan, rateLimitPerMin: ws.rate_limit_per_min, concurrency: ws.concurrency }).concurrency;
}

/** Gives free slots to the longest-waiting runs, first come, first served; returns them. */
async function grantFreeSlots(tx: Tx, workspaceId: string, limit: number): Promise<string[]> {
  const rows = await tx.$queryRaw<{ run_id: string }[]>`
    UPDATE run_slots SET holding = true
    WHERE run_id IN (
      SELECT run_id FROM run_slots WHERE workspace_id = ${workspaceId} AND NOT holding ORDER BY seq
      LIMIT GREATEST(0, ${limit}::int - (SELECT count(*) FROM run_slots WHERE workspace_id = ${workspaceId} AND holding)::int)
    )
    RETURNING run_id`;
  return rows.map((r) => r.run_id);
}

/**
 * Puts a run in its workspace's line for a slot, in creation order: done in the transaction
 * that creates the run, so a run started earlier is always served earlier, however late its
 * workflow first asks. Again (a no-op, or a return to the line after a review) when it asks.
 */
export async function joinSlotLine(tx: Tx, runId: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO run_slots (run_id, workspace_id, seq)
    SELECT id, workspace_id, seq FROM runs WHERE id = ${runId}
    ON CONFLICT (run_id) DO NOTHING`;
}

/**
 * A run asks for a slot: it joins the line (once, however often it asks) and every free slot
 * goes to the runs first in line. Asking again is how a waiting run re-checks its place.
 */
export async function claimSlot(db: Db, args: { workspaceId: string; runId: string }): Promise<SlotClaim> {
  return db.$transaction(async (tx) => {
    const limit = await lockWorkspace(tx, args.workspaceId);
    await joinSlotLine(tx, args.runId);
    const newlyGranted = await grantFreeSlots(tx, args.workspaceId, limit);
    const own = await tx.runSlot.findUnique({ where: { runId: args.runId } });
    const granted = own?.holding ?? false;
    let holdersToCheck: string[] = [];
    if (!granted) {
      const first = await tx.runSlot.findFirst({ where: { workspaceId: args.workspaceId, holding: false }, orderBy: { seq: 'asc' } });
      if (first?.runId === args.runId) {
        const holders = await tx.runSlot.findMany({ where: { workspaceId: args.workspaceId, holding: true }, select: { runId: true } });
        holdersToCheck = holders.map((h) => h.runId);
      }
    }
    return { granted, alsoGranted: newlyGranted.filter((id) => id !== args.runId), holdersToCheck };
  });
}

/**
 * Runs give their slot back (or leave the line): when they end, pause for a review, are
 * cancelled while waiting, or were found dead. Returns the runs let in instead.
 */
export async function releaseSlots(db: Db, args: { workspaceId: string; runIds: string[] }): Promise<string[]> {
  if (args.runIds.length === 0) return [];
  return db.$transaction(async (tx) => {
    const limit = await lockWorkspace(tx, args.workspaceId);
    await tx.runSlot.deleteMany({ where: { workspaceId: args.workspaceId, runId: { in: args.runIds } } });
    return grantFreeSlots(tx, args.workspaceId, limit);
  });
}
