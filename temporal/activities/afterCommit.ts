import { log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from '@svc/db';
import { releaseSlots } from '@svc/domain';
import type { AfterCommit, SlotGrant } from '@svc/domain';
import { slotGrantedSignal } from '../shared/slots';
import type { DeliveryStarter } from '../client/deliveryStarter';
import { isWorkflowClosed } from '../client/updateRetry';

export interface AfterCommitDeps {
  prisma: Db;
  /** Tells waiting runs they were given a slot. */
  temporal: { client: Client };
  webhooks: { starter: DeliveryStarter };
}

/**
 * What follows a committed run-state change: the runs given a slot are told (they wait for
 * this signal only), and the deliveries of its event are started.
 */
export function createAfterCommit(deps: AfterCommitDeps) {
  const { client } = deps.temporal;

  /**
   * Signals each run given a slot. One whose workflow has ended meanwhile gives its slot straight
   * back, to the next in line (under the same grant key). Any other failure fails the activity,
   * whose retry finds the same grants again (slots.ts) and tells them again; a repeated signal
   * is harmless.
   */
  async function tell(workspaceId: string, grants: SlotGrant[], grantKey: string): Promise<void> {
    const told = new Set<string>();
    while (grants.length > 0) {
      const gone: string[] = [];
      await Promise.all(
        grants.map(async (g) => {
          told.add(g.runId);
          try {
            await client.workflow.getHandle(g.temporalWorkflowId).signal(slotGrantedSignal);
          } catch (err) {
            // Ended, or never started: it cannot take the slot.
            if (isWorkflowClosed(err)) gone.push(g.runId);
            else throw err;
          }
        }),
      );
      if (gone.length === 0) return;
      const next = await releaseSlots(deps.prisma, { workspaceId, runIds: gone, grantKey });
      grants = next.filter((g) => !told.has(g.runId));
    }
  }

  /**
   * Starts an event's deliveries now, a few at a time, each start under a deadline and the whole
   * within a budget (DeliveryStartBounds): a workspace's many endpoints hold this activity briefly.
   * What is not started is left to the outbox relay; it never fails the activity.
   */
  async function startDeliveries(refs: AfterCommit['deliveries']): Promise<void> {
    if (refs.length === 0) return;
    try {
      const { left, error } = await deps.webhooks.starter.startAll(refs);
      if (left.length > 0) log.warn('delivery workflows not started; the relay will start them', { notStarted: left.length, err: error });
    } catch (err) {
      // Started ones not marked as such are started again by the relay, which finds them running.
      log.warn('delivery starts not recorded; the relay will see to them', { err: (err as Error).message });
    }
  }

  return {
    tell,
    startDeliveries,
    async done(workspaceId: string, grantKey: string, after: AfterCommit): Promise<void> {
      await Promise.all([tell(workspaceId, after.granted, grantKey), startDeliveries(after.deliveries)]);
    },
  };
}

export type AfterCommitActions = ReturnType<typeof createAfterCommit>;
