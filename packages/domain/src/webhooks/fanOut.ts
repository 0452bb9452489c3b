import { inTransaction, Prisma, rowsOf } from '@svc/db';
import type { Db, PreparedSql, SqlSource } from '@svc/db';
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
  db: Db | WebhookTx | PreparedSql,
  args: RecordEventArgs,
  opts: PublishOptions = {},
): Promise<{ eventId: string; created: boolean; deliveries: DeliveryRef[] }> {
  const run = async (tx: SqlSource) => {
    // The event, and the endpoints to fan out to, in one statement; nothing comes back when the
    // event was recorded before (a retried activity, a re-run command).
    const [first] = await rowsOf<{ id: string; endpoints: string[] }>(
      tx,
      Prisma.sql`
      WITH recorded AS (
        INSERT INTO events (id, workspace_id, type, dedupe_key, data)
        VALUES (${newId('evt')}, ${args.workspaceId}, ${args.type}, ${args.dedupeKey}, ${JSON.stringify(args.data)}::jsonb)
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id)
      SELECT id, ARRAY(SELECT e.id FROM webhook_endpoints e
                        WHERE e.workspace_id = ${args.workspaceId} AND e.status = 'enabled' AND ${args.type} = ANY(e.event_types)
                        ORDER BY e.id) AS endpoints
        FROM recorded`,
    );
    if (first) {
      if (first.endpoints.length === 0) return { eventId: first.id, created: true, deliveries: [] };
      const now = Date.now();
      const deliveries = await rowsOf<DeliveryRef>(
        tx,
        Prisma.sql`
        INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at, window_started_at, dispatch_after)
        SELECT d.id, ${args.workspaceId}, d.endpoint_id, ${first.id}, ${args.type}, ${new Date(now)}::timestamptz,
               ${new Date(now)}::timestamptz, ${new Date(now + (opts.dispatchDelayMs ?? 0))}::timestamptz
          FROM unnest(${first.endpoints.map(() => newId('dlv'))}::text[], ${first.endpoints}::text[]) AS d(id, endpoint_id)
        RETURNING id, workspace_id AS "workspaceId", generation`,
      );
      return { eventId: first.id, created: true, deliveries };
    }
    const pending = await rowsOf<DeliveryRef & { eventId: string }>(
      tx,
      Prisma.sql`
      SELECT e.id AS "eventId", d.id, d.workspace_id AS "workspaceId", d.generation
        FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.dispatched_at IS NULL
       WHERE e.dedupe_key = ${args.dedupeKey}`,
    );
    if (pending.length === 0) throw new Error(`event ${args.dedupeKey} was neither recorded nor found`);
    return {
      eventId: pending[0].eventId,
      created: false,
      deliveries: pending.filter((d) => d.id !== null).map(({ id, workspaceId, generation }) => ({ id, workspaceId, generation })),
    };
  };
  return inTransaction(db, run);
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
export async function markDeliveryDispatched(db: SqlSource, ref: DeliveryRef): Promise<void> {
  await rowsOf(
    db,
    Prisma.sql`UPDATE webhook_deliveries SET dispatched_at = now()
                WHERE id = ${ref.id} AND generation = ${ref.generation} AND dispatched_at IS NULL
            RETURNING id`,
  );
}
