import type { Db } from '@svc/db';
import { newId } from '../ids';
import { iso } from '../shared/time';

/** The kinds of event the service raises and delivers to subscribed endpoints. */
export const EVENT_TYPES = [
  'run.succeeded',
  'run.failed',
  'run.cancelled',
  'run.waiting_for_review',
  'review.decided',
  'workflow.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event body delivered to subscribers. */
export interface EventView {
  id: string;
  type: EventType;
  created_at: string;
  workspace_id: string;
  data: unknown;
}

export interface RecordEventArgs {
  workspaceId: string;
  type: EventType;
  /** One fact, one event: e.g. `run_x:run.succeeded`. A repeated call returns the first event. */
  dedupeKey: string;
  data: unknown;
}

/** Records an event exactly once per dedupe key and returns it (the original on repeats). */
export async function recordEvent(db: Db, args: RecordEventArgs): Promise<{ event: EventView; created: boolean }> {
  const id = newId('evt');
  const inserted = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO events (id, workspace_id, type, dedupe_key, data)
    VALUES (${id}, ${args.workspaceId}, ${args.type}, ${args.dedupeKey}, ${JSON.stringify(args.data)}::jsonb)
    ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`;
  const row = await db.event.findUniqueOrThrow({ where: { dedupeKey: args.dedupeKey } });
  return {
    created: inserted.length === 1,
    event: { id: row.id, type: row.type as EventType, created_at: iso(row.createdAt)!, workspace_id: row.workspaceId, data: row.data },
  };
}
