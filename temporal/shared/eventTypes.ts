import type { EventType } from '@svc/domain';

/** What the run workflow asks to publish; the activity builds the payload from the read model. */
export interface PublishEventInput {
  workspaceId: string;
  type: EventType;
  /** Deterministic per fact (e.g. `<runId>:run.succeeded`), so activity retries publish once. */
  dedupeKey: string;
  subject: { runId: string } | { reviewId: string };
}
