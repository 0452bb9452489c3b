import type { Db } from '@svc/db';
import { AppError } from '../errors';
import { recordEvent } from '../events/events';
import type { EventType, EventView } from '../events/events';
import { newId } from '../ids';
import { findEndpoint } from './endpoints';

/**
 * "Send a test event" (the console's endpoint page): an event of one of the endpoint's types,
 * recorded and delivered to that endpoint only, signed, retried and logged like any other.
 * There is no test event kind, so it carries a type the receiver subscribed to, with
 * `data: {test: true, …}` instead of a run, review or workflow: a receiver can tell it apart.
 * The delivery goes through the outbox; the workers' relay starts it within
 * WEBHOOK_DISPATCH_INTERVAL_MS.
 */
export async function sendTestEvent(
  db: Db,
  args: { workspaceId: string; endpointId: string; type: string; sentBy: string },
): Promise<{ event: EventView; deliveryId: string }> {
  return db.$transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, args.workspaceId, args.endpointId);
    if (endpoint.status !== 'enabled')
      throw new AppError('conflict', `Webhook endpoint ${endpoint.id} is disabled; enable it to send a test event`);
    if (!endpoint.eventTypes.includes(args.type)) {
      throw new AppError('validation_failed', 'The request body is not valid', {
        errors: [{ path: 'type', message: `the endpoint does not subscribe to ${args.type}` }],
      });
    }
    const type = args.type as EventType;
    const { event } = await recordEvent(tx as unknown as Db, {
      workspaceId: args.workspaceId,
      type,
      dedupeKey: `test:${newId('evt')}`,
      data: { test: true, endpoint_id: endpoint.id, sent_by: args.sentBy, note: 'A test event sent from the svc console' },
    });
    const now = new Date();
    const deliveryId = newId('dlv');
    await tx.webhookDelivery.create({
      data: {
        id: deliveryId,
        workspaceId: args.workspaceId,
        endpointId: endpoint.id,
        eventId: event.id,
        eventType: type,
        nextAttemptAt: now,
        windowStartedAt: now,
        dispatchAfter: now,
      },
    });
    return { event, deliveryId };
  });
}
