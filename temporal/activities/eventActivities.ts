import type { Db } from '@svc/db';
import { getRun, recordEvent, toReviewView } from '@svc/domain';
import type { PublishEventInput } from '../shared/eventTypes';

export interface EventActivityDeps {
  prisma: Db;
}

/**
 * Records events with their payload as the API shows it (secrets already removed in the
 * read model). One event per dedupe key, whatever the retries.
 */
export function createEventActivities(deps: EventActivityDeps) {
  async function payloadOf(input: PublishEventInput): Promise<unknown> {
    if ('runId' in input.subject) return getRun(deps.prisma, { workspaceId: input.workspaceId, runId: input.subject.runId });
    const review = await deps.prisma.review.findUniqueOrThrow({ where: { id: input.subject.reviewId } });
    return { ...toReviewView(review), run_id: review.runId };
  }

  return {
    async publishEvent(input: PublishEventInput): Promise<{ eventId: string }> {
      const { event } = await recordEvent(deps.prisma, {
        workspaceId: input.workspaceId,
        type: input.type,
        dedupeKey: input.dedupeKey,
        data: await payloadOf(input),
      });
      return { eventId: event.id };
    },
  };
}

export type EventActivities = ReturnType<typeof createEventActivities>;
