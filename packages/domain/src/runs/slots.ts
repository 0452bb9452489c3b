import { Prisma, rowsOf, sqlStateOf } from '@svc/db';
import type { Db, SqlSource } from '@svc/db';
import { planFiguresArg } from '../workspaces/limits';

/** A run given a slot: whoever gave it must signal its workflow (runs wait by signal only). */
export interface SlotGrant {
  runId: string;
  temporalWorkflowId: string;
}

/** A run asking for its slot, or giving it back. */
export interface SlotRequest {
  runId: string;
  workspaceId: string;
  /** Names this claim or release, the same on every retry (grantsOf). */
  grantKey: string;
}

/** What a claim found: whether the run holds a slot, and which waiting runs it let in too. */
export interface SlotClaim {
  granted: boolean;
  /** Runs (other than this one) given a slot under this claim's grant key: each must be told. */
  alsoGranted: SlotGrant[];
}

/** The concurrency figures the slot functions apply (svc_plan_figure). */
export const slotLimits = planFiguresArg('concurrency');

/**
 * A slot function's rows. Free slots go to the longest-waiting runs, first come, first served,
 * under the caller's grant key (one per workflow step that frees slots, the same on every
 * retry). The rows are every run let in under that key whose workflow has asked (the others
 * find their slot when they ask), so a retried call whose first attempt committed, then died
 * before telling them, finds them again; `grant_own`: the asking run now holds a slot.
 */
async function grantsOf(db: SqlSource, call: Prisma.Sql): Promise<{ grants: SlotGrant[]; own: boolean }> {
  const rows = await rowsOf<GrantRow>(db, call);
  return { grants: othersLetIn(rows), own: rows.some((r) => r.grant_own) };
}

interface GrantRow {
  grant_run_id: string;
  grant_workflow_id: string;
  grant_own: boolean;
}

/** The runs other than the asking one among a slot function's rows: each must be told. */
function othersLetIn(rows: GrantRow[]): SlotGrant[] {
  return rows.filter((r) => !r.grant_own).map((r) => ({ runId: r.grant_run_id, temporalWorkflowId: r.grant_workflow_id }));
}

/** A workspace holds at most this many times its concurrency figure of queued runs. */
export const QUEUE_CAP_PER_SLOT = 1_000;

/**
 * A run asks for a slot: it joins the line (once, however often it asks) and every free slot
 * goes to the runs first in line. A run that is not granted one waits for a signal.
 */
export async function claimSlot(db: SqlSource, args: SlotRequest): Promise<SlotClaim> {
  // One statement, so its own transaction: the workspace's lock (every change to its slots
  // happens one at a time, whichever worker makes it, so the limit holds across all of them),
  // the run in line (since its creation, or again after a review; now asking), then the grant.
  // Each runs on a snapshot taken after the one before, inside svc_claim_slot.
  const { grants, own } = await grantsOf(
    db,
    Prisma.sql`SELECT * FROM svc_claim_slot(${args.workspaceId}, ${args.runId}, ${args.grantKey}, ${slotLimits}::jsonb)`,
  );
  return { granted: own, alsoGranted: grants };
}

/** svc_end_slot's SQLSTATE when it must be made again under the exclusive lock (see endSlot). */
const END_SLOT_EXCLUSIVELY = 'SV002';

/** A run's slot at its ending. */
export interface SlotEnding {
  workspaceId: string;
  runId: string;
  /** Names the release (see grantsOf); the same on every retry. */
  releaseKey: string;
  /** Under the workspace's exclusive lock: after endSlot failed with isEndSlotExclusively. */
  exclusive: boolean;
}

/**
 * A run gives its slot back at its ending, as a transaction's last statement. While no run of the
 * workspace waits for a slot it asked for, that frees a slot nobody must be told of: the
 * workspace's slot lock is then taken shared, so endings do not wait for one another; otherwise
 * the release is made under the exclusive lock. Answers the runs let in; fails with
 * isEndSlotExclusively when it must be made again with `exclusive`.
 */
export async function endSlot(db: SqlSource, e: SlotEnding): Promise<SlotGrant[]> {
  const rows = await rowsOf<GrantRow>(
    db,
    Prisma.sql`SELECT * FROM svc_end_slot(${e.workspaceId}, ${e.runId}, ${e.releaseKey}, ${slotLimits}::jsonb, ${e.exclusive})`,
  );
  return othersLetIn(rows);
}

/** Whether a transaction failed because its endSlot must be made under the exclusive lock. */
export function isEndSlotExclusively(err: unknown): boolean {
  return sqlStateOf(err) === END_SLOT_EXCLUSIVELY;
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
  /** Names this release (see grantsOf); the same on every retry of it. */
  grantKey: string;
}

/**
 * Runs give their slot back (or leave the line): when they end, pause for a review, are
 * cancelled while waiting, or were found dead; alone, or inside the caller's transaction.
 * Returns the runs let in instead.
 */
export async function releaseSlots(db: SqlSource, args: SlotRelease): Promise<SlotGrant[]> {
  if (args.runIds.length === 0) return [];
  // The lock (see claimSlot), the release and the grant: one statement.
  const { grants } = await grantsOf(
    db,
    Prisma.sql`SELECT * FROM svc_release_slots(${args.workspaceId}, ${args.runIds}::text[], ${args.grantKey}, ${slotLimits}::jsonb)`,
  );
  return grants;
}
