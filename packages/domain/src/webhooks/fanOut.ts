import type { Db } from '@svc/db';
import { recordEvent } from '../events/events';
import type { EventView, RecordEventArgs } from '../events/events';
import { newId } from '../ids';
import type { WebhookTx } from './endpoints';

/** What a starter needs to start (or find) the Temporal workflow of one delivery generation. */
export interface DeliveryRef {
  id: string;
  workspaceId: string;
  generation: number;
}

export interface PublishOptions {
  /**
   * When the outbox relay may start these deliveries' workflows itself. A caller that starts
   * them right away (the publishEvent activity) leaves the relay a grace period, so the relay
   * only steps in when that start was interrupted. Default 0: the relay starts them.
   */
  dispatchDelayMs?: number;
}

/**
 * Records an event once per dedupe key and, in the same transaction, one delivery per enabled
 * endpoint of the workspace subscribed to its type (the transactional outbox): the event and its
 * deliveries exist together or not at all, so no crash can lose a delivery. Fan-out happens
 * when the event is first recorded; a repeated call (a retried activity, a re-run command)
 * creates nothing new and returns the deliveries whose workflow is not started yet.
 *
 * Works on a client or inside a caller's transaction.
 */
export async function recordEventAndDeliveries(
  db: Db | WebhookTx,
  args: RecordEventArgs,
  opts: PublishOptions = {},
): Promise<{ event: EventView; created: boolean; deliveries: DeliveryRef[] }> {
  const run = async (tx: WebhookTx) => {
    // recordEvent only uses $queryRaw and model reads, which a transaction client has.
    const { event, created } = await recordEvent(tx as unknown as Db, args);
    if (created) {
      const endpoints = await tx.webhookEndpoint.findMany({
        where: { workspaceId: args.workspaceId, status: 'enabled', eventTypes: { has: args.type } },
        select: { id: true },
      });
      if (endpoints.length) {
        const now = new Date();
        await tx.webhookDelivery.createMany({
          data: endpoints.map((e) => ({
            id: newId('dlv'),
            workspaceId: args.workspaceId,
            endpointId: e.id,
            eventId: event.id,
            eventType: args.type,
            nextAttemptAt: now,
            windowStartedAt: now,
            dispatchAfter: new Date(now.getTime() + (opts.dispatchDelayMs ?? 0)),
          })),
          skipDuplicates: true,
        });
      }
    }
    const pending = await tx.webhookDelivery.findMany({
      where: { eventId: event.id, dispatchedAt: null },
      select: { id: true, workspaceId: true, generation: true },
    });
    return { event, created, deliveries: pending };
  };
  // A transaction client has no $transaction of its own: then we are inside the caller's.
  const client = db as Partial<Pick<Db, '$transaction'>>;
  return typeof client.$transaction === 'function' ? (db as Db).$transaction(run) : run(db as WebhookTx);
}

/** Outbox rows due for a start (oldest first): none normally, a few after an interruption. */
export async function undispatchedDeliveries(db: Db, limit = 100): Promise<DeliveryRef[]> {
  return db.webhookDelivery.findMany({
    where: { dispatchedAt: null, dispatchAfter: { lte: new Date() } },
    orderBy: { dispatchAfter: 'asc' },
    take: limit,
    select: { id: true, workspaceId: true, generation: true },
  });
}

/** Marks one generation as started (a newer generation stays in the outbox). */
export async function markDeliveryDispatched(db: Db, ref: DeliveryRef): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id: ref.id, generation: ref.generation, dispatchedAt: null },
    data: { dispatchedAt: new Date() },
  });
}
