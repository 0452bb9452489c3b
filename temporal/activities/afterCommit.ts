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

  /** Starts the deliveries now; one that cannot be started is left to the outbox relay. */
  async function startDeliveries(refs: AfterCommit['deliveries']): Promise<void> {
    await Promise.all(
      refs.map((d) =>
        deps.webhooks.starter.start(d).catch((err: Error) => {
          log.warn('delivery workflow not started; the relay will start it', { deliveryId: d.id, err: err.message });
        }),
      ),
    );
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
