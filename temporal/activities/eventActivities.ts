import { log } from '@temporalio/activity';
import type { Db } from '@svc/db';
import { getRun, recordEventAndDeliveries, toReviewView } from '@svc/domain';
import type { PublishEventInput } from '../shared/eventTypes';
import type { DeliveryStarter } from '../client/deliveryStarter';

export interface EventActivityDeps {
  prisma: Db;
  webhooks: { starter: DeliveryStarter };
}

/**
 * How long the outbox relay leaves a delivery to the publisher that created it before
 * starting its workflow itself (only happens when that start was interrupted).
 */
export const PUBLISHER_DISPATCH_GRACE_MS = 30_000;

/**
 * Records events with their payload as the API shows it (secrets already removed in the
 * read model), fans them out to the subscribed endpoints and starts the delivery workflows.
 * One event per dedupe key and one delivery per (event, endpoint), whatever the retries.
 */
export function createEventActivities(deps: EventActivityDeps) {
  async function payloadOf(input: PublishEventInput): Promise<unknown> {
    if ('runId' in input.subject) return getRun(deps.prisma, { workspaceId: input.workspaceId, runId: input.subject.runId });
    const review = await deps.prisma.review.findUniqueOrThrow({ where: { id: input.subject.reviewId } });
    return { ...toReviewView(review), run_id: review.runId };
  }

  return {
    async publishEvent(input: PublishEventInput): Promise<{ eventId: string }> {
      // Event and deliveries in one transaction (the outbox): a crash after it loses nothing.
      const { event, deliveries } = await recordEventAndDeliveries(
        deps.prisma,
        { workspaceId: input.workspaceId, type: input.type, dedupeKey: input.dedupeKey, data: await payloadOf(input) },
        { dispatchDelayMs: PUBLISHER_DISPATCH_GRACE_MS },
      );
      // Start the workflows now; one that cannot be started (Temporal busy) is left to the
      // relay, so the run never waits on a subscriber.
      await Promise.all(
        deliveries.map((d) =>
          deps.webhooks.starter.start(d).catch((err: Error) => {
            log.warn('delivery workflow not started; the relay will start it', { deliveryId: d.id, err: err.message });
          }),
        ),
      );
      return { eventId: event.id };
    },
  };
}

export type EventActivities = ReturnType<typeof createEventActivities>;
