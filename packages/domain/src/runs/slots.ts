import { inTransaction, Prisma, rowsOf } from '@svc/db';
import type { Db, PreparedSql, SqlSource } from '@svc/db';
import { workspaceLimits } from '../workspaces/limits';

/** A transaction: Prisma's, or one connection of the prepared statements' pool. */
type Tx = SqlSource;

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

/** The workspace's plan fields, read under its lock. */
interface LockedWorkspace {
  plan: string;
  rate_limit_per_min: number | null;
  concurrency: number | null;
}

/** The workspace's row under its slot lock (see claimSlot), as a statement's first part. */
const lockWorkspace = (workspaceId: string) =>
  Prisma.sql`SELECT plan, rate_limit_per_min, concurrency FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;

function concurrencyOf(ws: LockedWorkspace | undefined): number {
  if (!ws) return 0;
  return workspaceLimits({ plan: ws.plan, rateLimitPerMin: ws.rate_limit_per_min, concurrency: ws.concurrency }).concurrency;
}

/**
 * Gives free slots to the longest-waiting runs, first come, first served, under the caller's
 * grant key (one per workflow step that frees slots, the same on every retry), in ONE
 * statement: the workspace's lock is held from the statement before until the commit, so it
 * is held for as few round trips as possible. Returns every run let in under that key whose
 * workflow has asked (the others find their slot when they ask): a retried call (whose first
 * attempt committed, then died before telling them) finds them again. `own`: whether that run
 * now holds a slot.
 *
 * A statement sees the rows as they were when it began, so the runs let in now come from the
 * UPDATE's RETURNING, and those let in by an earlier attempt from the table.
 */
async function grantFreeSlots(
  tx: Tx,
  workspaceId: string,
  limit: number,
  grantKey: string,
  ownRunId: string | null = null,
): Promise<{ grants: SlotGrant[]; own: boolean }> {
  const rows = await rowsOf<SlotGrant & { own: boolean }>(
    tx,
    Prisma.sql`
    WITH granted AS (
      UPDATE run_slots SET holding = true, granted_by = ${grantKey}
       WHERE run_id IN (
         SELECT run_id FROM run_slots WHERE workspace_id = ${workspaceId} AND NOT holding ORDER BY seq
          LIMIT GREATEST(0, ${limit}::int - (SELECT count(*) FROM run_slots WHERE workspace_id = ${workspaceId} AND holding)::int))
      RETURNING run_id, asked),
    holders AS (
      SELECT run_id, asked, true AS fresh FROM granted
      UNION ALL
      SELECT run_id, asked, false FROM run_slots
       WHERE workspace_id = ${workspaceId} AND holding AND (granted_by = ${grantKey} OR run_id = ${ownRunId}))
    SELECT h.run_id AS "runId", r.temporal_workflow_id AS "temporalWorkflowId", bool_or(h.run_id = ${ownRunId}) AS own
      FROM holders h JOIN runs r ON r.id = h.run_id
     WHERE h.asked OR h.run_id = ${ownRunId}
     GROUP BY h.run_id, r.temporal_workflow_id`,
  );
  return {
    grants: rows.filter((r) => !r.own).map(({ runId, temporalWorkflowId }) => ({ runId, temporalWorkflowId })),
    own: rows.some((r) => r.own),
  };
}

/** A workspace holds at most this many times its concurrency figure of queued runs (API.md §8). */
export const QUEUE_CAP_PER_SLOT = 1_000;

/**
 * A run asks for a slot: it joins the line (once, however often it asks) and every free slot
 * goes to the runs first in line. A run that is not granted one waits for a signal.
 */
export async function claimSlot(db: Db | PreparedSql, args: { workspaceId: string; runId: string; grantKey: string }): Promise<SlotClaim> {
  return inTransaction(db, async (tx) => {
    // Takes the workspace's lock (every change to its slots happens one at a time, whichever
    // worker makes it, so the limit holds across all of them; NO KEY UPDATE does not block the
    // key-share locks of foreign keys, so runs keep being created meanwhile), and puts the run
    // in line: since its creation (startRun), or again after a review; now asking.
    const [ws] = await rowsOf<LockedWorkspace>(
      tx,
      Prisma.sql`
      WITH locked AS (${lockWorkspace(args.workspaceId)}),
      asking AS (
        INSERT INTO run_slots (run_id, workspace_id, seq, asked)
        SELECT id, workspace_id, seq, true FROM runs WHERE id = ${args.runId}
        ON CONFLICT (run_id) DO UPDATE SET asked = true WHERE NOT run_slots.asked)
      SELECT * FROM locked`,
    );
    // A run that was not yet in line is only seen by the next statement.
    const { grants, own } = await grantFreeSlots(tx, args.workspaceId, concurrencyOf(ws), args.grantKey, args.runId);
    return { granted: own, alsoGranted: grants };
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
  // The lock (see claimSlot) and the release in one statement.
  const [ws] = await rowsOf<LockedWorkspace>(
    tx,
    Prisma.sql`
    WITH locked AS (${lockWorkspace(args.workspaceId)}),
    released AS (
      DELETE FROM run_slots WHERE workspace_id = ${args.workspaceId} AND run_id = ANY(${args.runIds}::text[]))
    SELECT * FROM locked`,
  );
  return (await grantFreeSlots(tx, args.workspaceId, concurrencyOf(ws), args.grantKey)).grants;
}

/** releaseSlotsIn in a transaction of its own. */
export async function releaseSlots(db: Db | PreparedSql, args: SlotRelease): Promise<SlotGrant[]> {
  if (args.runIds.length === 0) return [];
  return inTransaction(db, (tx) => releaseSlotsIn(tx, args));
}
