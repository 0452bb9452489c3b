import { Prisma, rowsOf } from '@svc/db';
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
 * One statement (the deliveries' ids made by PostgreSQL, svc_new_id), so a caller may send what
 * follows it in its transaction, its COMMIT included, without waiting for its answer.
 * Works on a client or inside a caller's transaction.
 */
export async function recordEventAndDeliveries(
  db: SqlSource,
  args: RecordEventArgs,
  opts: PublishOptions = {},
): Promise<{ eventId: string; created: boolean; deliveries: DeliveryRef[] }> {
  const now = Date.now();
  const [row] = await rowsOf<{ event_id: string; created: boolean; deliveries: DeliveryRef[] }>(
    db,
    Prisma.sql`
    WITH recorded AS (
      INSERT INTO events (id, workspace_id, type, dedupe_key, data)
      VALUES (${newId('evt')}, ${args.workspaceId}, ${args.type}, ${args.dedupeKey}, ${JSON.stringify(args.data)}::jsonb)
      ON CONFLICT (dedupe_key) DO NOTHING RETURNING id),
    fanned AS (
      INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at, window_started_at, dispatch_after)
      SELECT svc_new_id('dlv'), ${args.workspaceId}, e.id, r.id, ${args.type}, ${new Date(now)}::timestamptz,
             ${new Date(now)}::timestamptz, ${new Date(now + (opts.dispatchDelayMs ?? 0))}::timestamptz
        FROM recorded r JOIN webhook_endpoints e
          ON e.workspace_id = ${args.workspaceId} AND e.status = 'enabled' AND ${args.type} = ANY(e.event_types)
       ORDER BY e.id
      RETURNING id, workspace_id, generation),
    -- The event and what it fanned out to; or, recorded before, its deliveries not started yet.
    -- (A statement sees what was committed when it began: an event a concurrent call records
    -- meanwhile is found by the next attempt.)
    found AS (
      SELECT r.id AS event_id, true AS created, f.id, f.workspace_id, f.generation FROM recorded r LEFT JOIN fanned f ON true
      UNION ALL
      SELECT e.id, false, d.id, d.workspace_id, d.generation
        FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.dispatched_at IS NULL
       WHERE e.dedupe_key = ${args.dedupeKey} AND NOT EXISTS (SELECT 1 FROM recorded))
    SELECT event_id, created,
           COALESCE(json_agg(json_build_object('id', id, 'workspaceId', workspace_id, 'generation', generation))
                      FILTER (WHERE id IS NOT NULL), '[]'::json) AS deliveries
      FROM found GROUP BY event_id, created`,
  );
  if (!row) throw new Error(`event ${args.dedupeKey} was neither recorded nor found`);
  return { eventId: row.event_id, created: row.created, deliveries: row.deliveries };
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

/** Marks these generations as started, in one statement (a newer generation stays in the outbox). */
export async function markDeliveriesDispatched(db: SqlSource, refs: DeliveryRef[]): Promise<void> {
  await rowsOf(
    db,
    Prisma.sql`UPDATE webhook_deliveries d SET dispatched_at = now()
                 FROM unnest(${refs.map((r) => r.id)}::text[], ${refs.map((r) => r.generation)}::int[]) AS s(id, generation)
                WHERE d.id = s.id AND d.generation = s.generation AND d.dispatched_at IS NULL
            RETURNING d.id`,
  );
}

/** Hands deliveries whose start did not happen to the outbox relay at once (not after the publisher's grace period). */
export async function makeDeliveriesDue(db: SqlSource, refs: DeliveryRef[]): Promise<void> {
  await rowsOf(
    db,
    Prisma.sql`UPDATE webhook_deliveries SET dispatch_after = now()
                WHERE id = ANY(${refs.map((r) => r.id)}::text[]) AND dispatched_at IS NULL AND dispatch_after > now()
            RETURNING id`,
  );
}
