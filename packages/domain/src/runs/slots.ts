import type { Db } from '@svc/db';
import { workspaceLimits } from '../workspaces/limits';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** A run given a slot: whoever gave it must signal its workflow (runs wait by signal only). */
export interface SlotGrant {
  runId: string;
  temporalWorkflowId: string;
}

/** What a claim found: whether the run holds a slot, and which waiting runs it let in too. */
export interface SlotClaim {
  granted: boolean;
  /** Runs (other than this one) given a slot under this claim's grant key: each must be told. */
  alsoGranted: SlotGrant[];
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

/**
 * Gives free slots to the longest-waiting runs, first come, first served, under the caller's
 * grant key (one per workflow step that frees slots, the same on every retry). Returns every
 * run let in under that key whose workflow has asked (the others find their slot when they
 * ask): a retried call (whose first attempt committed, then died before telling them) finds
 * them again.
 */
async function grantFreeSlots(tx: Tx, workspaceId: string, limit: number, grantKey: string): Promise<SlotGrant[]> {
  await tx.$executeRaw`
    UPDATE run_slots SET holding = true, granted_by = ${grantKey}
    WHERE run_id IN (
      SELECT run_id FROM run_slots WHERE workspace_id = ${workspaceId} AND NOT holding ORDER BY seq
      LIMIT GREATEST(0, ${limit}::int - (SELECT count(*) FROM run_slots WHERE workspace_id = ${workspaceId} AND holding)::int)
    )`;
  return tx.$queryRaw<SlotGrant[]>`
    SELECT s.run_id AS "runId", r.temporal_workflow_id AS "temporalWorkflowId"
      FROM run_slots s JOIN runs r ON r.id = s.run_id
     WHERE s.workspace_id = ${workspaceId} AND s.holding AND s.asked AND s.granted_by = ${grantKey}`;
}

/** A workspace holds at most this many times its concurrency figure of queued runs (API.md §8). */
export const QUEUE_CAP_PER_SLOT = 1_000;

/**
 * A run asks for a slot: it joins the line (once, however often it asks) and every free slot
 * goes to the runs first in line. A run that is not granted one waits for a signal.
 */
export async function claimSlot(db: Db, args: { workspaceId: string; runId: string; grantKey: string }): Promise<SlotClaim> {
  return db.$transaction(async (tx) => {
    const limit = await lockWorkspace(tx, args.workspaceId);
    // In line since its creation (startRun), or again after a review: now asking.
    await tx.$executeRaw`
      INSERT INTO run_slots (run_id, workspace_id, seq, asked)
      SELECT id, workspace_id, seq, true FROM runs WHERE id = ${args.runId}
      ON CONFLICT (run_id) DO UPDATE SET asked = true WHERE NOT run_slots.asked`;
    const grants = await grantFreeSlots(tx, args.workspaceId, limit, args.grantKey);
    const own = await tx.runSlot.findUnique({ where: { runId: args.runId }, select: { holding: true } });
    return { granted: own?.holding ?? false, alsoGranted: grants.filter((g) => g.runId !== args.runId) };
  });
}

/**
 * The slot holders of every workspace where runs wait: the reconciler checks them for runs
 * that ended without giving their slot back (terminated from the Temporal UI).
 */
export async function holdersWhereRunsWait(db: Db): Promise<Array<{ workspaceId: string; holders: SlotGrant[] }>> {
  const rows = await db.$queryRaw<Array<SlotGrant & { workspaceId: string }>>`
    SELECT s.workspace_id AS "workspaceId", s.run_id AS "runId", r.temporal_workflow_id AS "temporalWorkflowId"
      FROM run_slots s JOIN runs r ON r.id = s.run_id
     WHERE s.holding AND s.workspace_id IN (SELECT workspace_id FROM run_slots WHERE NOT holding)
     ORDER BY s.workspace_id`;
  const byWorkspace = new Map<string, SlotGrant[]>();
  for (const { workspaceId, ...holder } of rows) byWorkspace.set(workspaceId, [...(byWorkspace.get(workspaceId) ?? []), holder]);
  return [...byWorkspace].map(([workspaceId, holders]) => ({ workspaceId, holders }));
}

export interface SlotRelease {
  workspaceId: string;
  runIds: string[];
  /** Names this release (see grantFreeSlots); the same on every retry of it. */
  grantKey: string;
}

/**
 * Runs give their slot back (or leave the line) inside the caller's transaction: when they
 * end, pause for a review, are cancelled while waiting, or were found dead. Returns the runs
 * let in instead.
 */
export async function releaseSlotsIn(tx: Tx, args: SlotRelease): Promise<SlotGrant[]> {
  const limit = await lockWorkspace(tx, args.workspaceId);
  if (args.runIds.length) await tx.runSlot.deleteMany({ where: { workspaceId: args.workspaceId, runId: { in: args.runIds } } });
  return grantFreeSlots(tx, args.workspaceId, limit, args.grantKey);
}

/** releaseSlotsIn in a transaction of its own. */
export async function releaseSlots(db: Db, args: SlotRelease): Promise<SlotGrant[]> {
  if (args.runIds.length === 0) return [];
  return db.$transaction((tx) => releaseSlotsIn(tx, args));
}
