import type { Client } from '@temporalio/client';
import type { Db } from '@svc/db';
import { claimSlot, releaseSlots } from '@svc/domain';
import { slotGrantedSignal } from '../shared/slots';

const DESCRIBE_BATCH = 20;

export interface SlotActivityDeps {
  prisma: Db;
  /** Tells runs they were given a slot, and checks whether holders are still alive. */
  temporal: { client: Client };
}

/** Activities behind the per-workspace concurrency limit (API.md §8; domain/runs/slots.ts). */
export function createSlotActivities(deps: SlotActivityDeps) {
  const { client } = deps.temporal;

  /** Which of these runs' workflows have closed (e.g. terminated from the Temporal UI). */
  async function closedRuns(runIds: string[]): Promise<string[]> {
    // Described one by one (visibility may lag behind a run just started), a few at a time.
    const closed: string[] = [];
    for (let i = 0; i < runIds.length; i += DESCRIBE_BATCH) {
      await Promise.all(
        runIds.slice(i, i + DESCRIBE_BATCH).map(async (runId) => {
          try {
            const { status } = await client.workflow.getHandle(runId).describe();
            if (status.name !== 'RUNNING') closed.push(runId);
          } catch (err) {
            if ((err as Error).name === 'WorkflowNotFoundError') closed.push(runId);
            else throw err;
          }
        }),
      );
    }
    return closed;
  }

  /**
   * Signals the runs just given a slot. One that has ended meanwhile gives its slot straight
   * back, to the next in line. (A signal lost to a crash here is made up for by the run's own
   * periodic re-check; the others fail the activity, which is retried.)
   */
  async function tell(workspaceId: string, granted: string[]): Promise<void> {
    while (granted.length > 0) {
      const gone: string[] = [];
      await Promise.all(
        granted.map((runId) =>
          client.workflow
            .getHandle(runId)
            .signal(slotGrantedSignal)
            .catch((err: Error) => {
              // Ended (or not started yet: it takes its place again when it first asks).
              if (err.name === 'WorkflowNotFoundError') gone.push(runId);
              else throw err;
            }),
        ),
      );
      granted = await releaseSlots(deps.prisma, { workspaceId, runIds: gone });
    }
  }

  return {
    /** Joins the line (or re-checks the run's place); true once the run holds a slot. */
    async acquireSlot(args: { workspaceId: string; runId: string }): Promise<{ granted: boolean }> {
      const claim = await claimSlot(deps.prisma, args);
      await tell(args.workspaceId, claim.alsoGranted);
      if (claim.granted || claim.holdersToCheck.length === 0) return { granted: claim.granted };
      // First in line: holders that ended without giving their slot back lose it now.
      const dead = await closedRuns(claim.holdersToCheck);
      if (dead.length === 0) return { granted: false };
      const granted = await releaseSlots(deps.prisma, { workspaceId: args.workspaceId, runIds: dead });
      await tell(
        args.workspaceId,
        granted.filter((id) => id !== args.runId),
      );
      return { granted: granted.includes(args.runId) };
    },

    /** Gives the run's slot back (or its place in line) and lets the next runs in. */
    async releaseSlot(args: { workspaceId: string; runId: string }): Promise<void> {
      await tell(args.workspaceId, await releaseSlots(deps.prisma, { workspaceId: args.workspaceId, runIds: [args.runId] }));
    },
  };
}
