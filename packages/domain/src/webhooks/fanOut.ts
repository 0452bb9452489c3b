import type { Db } from '@svc/db';
import type { RecordEventArgs } from '../events/events';
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
): Promise<{ eventId: string; created: boolean; deliveries: DeliveryRef[] }> {
  const run = async (tx: WebhookTx) => {
    // The event, and the endpoints to fan out to, in one statement; nothing comes back when the
    // event was recorded before (a retried activity, a re-run command).
    const [first] = await tx.$queryRaw<Array<{ id: string; endpoints: string[] }>>`
      WITH recorded AS (
        INSERT INTO events (id, workspace_id, type, dedupe_key, data)
        VALUES (${newId('evt')}, ${args.workspaceId}, ${args.type}, ${args.dedupeKey}, ${JSON.stringify(args.data)}::jsonb)
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id)
      SELECT id, ARRAY(SELECT e.id FROM webhook_endpoints e
                        WHERE e.workspace_id = ${args.workspaceId} AND e.status = 'enabled' AND ${args.type} = ANY(e.event_types)
                        ORDER BY e.id) AS endpoints
        FROM recorded`;
    if (first) {
      if (first.endpoints.length === 0) return { eventId: first.id, created: true, deliveries: [] };
      const now = new Date();
      const deliveries = await tx.webhookDelivery.createManyAndReturn({
        data: first.endpoints.map((endpointId) => ({
          id: newId('dlv'),
          workspaceId: args.workspaceId,
          endpointId,
          eventId: first.id,
          eventType: args.type,
          nextAttemptAt: now,
          windowStartedAt: now,
          dispatchAfter: new Date(now.getTime() + (opts.dispatchDelayMs ?? 0)),
        })),
        select: { id: true, workspaceId: true, generation: true },
      });
      return { eventId: first.id, created: true, deliveries };
    }
    const event = await tx.event.findUniqueOrThrow({ where: { dedupeKey: args.dedupeKey }, select: { id: true } });
    const pending = await tx.webhookDelivery.findMany({
      where: { eventId: event.id, dispatchedAt: null },
      select: { id: true, workspaceId: true, generation: true },
    });
    return { eventId: event.id, created: false, deliveries: pending };
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
