import type { Db } from '@svc/db';
import { AppError } from '../errors';
import type { EventType } from '../events/events';
import { decodeCursor, toPage } from '../shared/pagination';
import type { Page } from '../shared/pagination';
import { iso } from '../shared/time';
import { findEndpoint } from './endpoints';
import type { WebhookTx } from './endpoints';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One row of the delivery log. */
export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  created_at: string | null;
}

/** One attempt: `response_status` 0 = no response; `error` is the failure class or null. */
export interface AttemptView {
  number: number;
  started_at: string | null;
  duration_ms: number;
  response_status: number;
  response_body_excerpt: string;
  error: string | null;
}

type DeliveryRow = Awaited<ReturnType<Db['webhookDelivery']['findUniqueOrThrow']>>;
type AttemptRow = Awaited<ReturnType<Db['webhookAttempt']['findUniqueOrThrow']>>;

export function toDeliveryView(d: DeliveryRow): DeliveryView {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType as EventType,
    status: d.status as DeliveryStatus,
    attempt_count: d.attemptCount,
    next_attempt_at: iso(d.nextAttemptAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_response_status: d.lastResponseStatus,
    created_at: iso(d.createdAt),
  };
}

export function toAttemptView(a: AttemptRow): AttemptView {
  return {
    number: a.number,
    started_at: iso(a.startedAt),
    duration_ms: a.durationMs,
    response_status: a.responseStatus,
    response_body_excerpt: a.responseBodyExcerpt,
    error: a.error,
  };
}

/** Temporal workflow id of one generation of a delivery: `<id>`, then `<id>-r<n>` per manual retry. */
export function deliveryWorkflowId(deliveryId: string, generation: number): string {
  return generation === 0 ? deliveryId : `${deliveryId}-r${generation}`;
}

export async function listDeliveries(
  db: Db,
  args: { workspaceId?: string; endpointId: string; status?: DeliveryStatus; eventType?: string; limit: number; cursor?: string },
): Promise<Page<DeliveryView>> {
  const endpoint = await findEndpoint(db, args.workspaceId, args.endpointId);
  const before = decodeCursor(args.cursor);
  const rows = await db.webhookDelivery.findMany({
    where: {
      endpointId: endpoint.id,
      ...(args.status ? { status: args.status } : {}),
      ...(args.eventType ? { eventType: args.eventType } : {}),
      ...(before !== undefined ? { seq: { lt: before } } : {}),
    },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, toDeliveryView);
}

async function findDelivery(
  db: Db | WebhookTx,
  args: { workspaceId?: string; endpointId?: string; deliveryId: string },
): Promise<DeliveryRow> {
  if (args.endpointId) await findEndpoint(db, args.workspaceId, args.endpointId);
  const row = await db.webhookDelivery.findFirst({
    where: {
      id: args.deliveryId,
      ...(args.endpointId ? { endpointId: args.endpointId } : {}),
      ...(args.workspaceId ? { workspaceId: args.workspaceId } : {}),
    },
  });
  if (!row) throw new AppError('not_found', `Delivery ${args.deliveryId} not found`);
  return row;
}

/** One delivery with every attempt, oldest attempt first. */
export async function getDelivery(
  db: Db,
  args: { workspaceId?: string; endpointId?: string; deliveryId: string },
): Promise<DeliveryView & { endpoint_id: string; attempts: AttemptView[] }> {
  const row = await findDelivery(db, args);
  const attempts = await db.webhookAttempt.findMany({ where: { deliveryId: row.id }, orderBy: { number: 'asc' } });
  return { ...toDeliveryView(row), endpoint_id: row.endpointId, attempts: attempts.map(toAttemptView) };
}

/**
 * Sends a delivery again: a new attempt sequence (a new generation, so a new Temporal
 * workflow `<id>-r<n>`) over the whole retry schedule, starting now. A sequence still running
 * for the delivery is superseded: its workflow ends at its next attempt without sending.
 * The new workflow is started through the outbox (`dispatched_at` NULL): the workers' relay
 * starts it within WEBHOOK_DISPATCH_INTERVAL_MS. A disabled endpoint must be re-enabled first.
 */
export async function retryDelivery(
  db: Db,
  args: { workspaceId?: string; endpointId?: string; deliveryId: string },
): Promise<DeliveryView> {
  return db.$transaction(async (tx) => {
    const found = await findDelivery(tx, args);
    await tx.$queryRaw`SELECT id FROM webhook_deliveries WHERE id = ${found.id} FOR UPDATE`;
    const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: found.endpointId } });
    if (endpoint.status !== 'enabled') {
      throw new AppError('conflict', `Webhook endpoint ${endpoint.id} is disabled; re-enable it (PATCH enabled: true) before retrying`);
    }
    const now = new Date();
    const row = await tx.webhookDelivery.update({
      where: { id: found.id },
      data: {
        generation: { increment: 1 },
        status: 'pending',
        nextAttemptAt: now,
        windowStartedAt: now,
        dispatchAfter: now,
        dispatchedAt: null,
      },
    });
    return toDeliveryView(row);
  });
}
