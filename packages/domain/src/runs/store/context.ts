import { Prisma, rowsOf } from '@svc/db';
import type { Db, PreparedSql, SqlSource } from '@svc/db';
import type { EventType } from '../../events/events';
import { recordEventAndDeliveries } from '../../webhooks/fanOut';
import type { DeliveryRef } from '../../webhooks/fanOut';
import { runFromJson, runSelectJson } from '../readRuns';
import type { RunView } from '../runView';
import type { RunStoreObserver } from './types';

/** What every part of the run store shares: where its statements and transactions run, and who is told. */
export interface StoreContext {
  /** The pool's prepared statements when given, else Prisma: every statement and transaction of the store. */
  db: Db | PreparedSql;
  observer?: RunStoreObserver;
  /** How long the outbox relay leaves a recorded delivery to the activity that recorded it. */
  dispatchDelayMs: number;
}

/** The largest run row a settling notice carries (PostgreSQL takes payloads under 8,000 bytes). */
const NOTICE_BODY_MAX = 7_900;

/** JSON for a jsonb parameter; null stays SQL NULL. */
export const jsonb = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/** Reports a run's move out of `queued` (by how many rows that write moved: once per run). */
export function noteStart(ctx: StoreContext, moved: number): void {
  if (moved > 0) ctx.observer?.runStarted();
}

/** Records an event and its deliveries in the caller's transaction. */
export async function publishIn(
  ctx: StoreContext,
  tx: SqlSource,
  event: { workspaceId: string; type: EventType; dedupeKey: string; data: unknown },
): Promise<DeliveryRef[]> {
  const { deliveries } = await recordEventAndDeliveries(tx, event, { dispatchDelayMs: ctx.dispatchDelayMs });
  return deliveries;
}

/**
 * The run as it now is, read in the transaction that settles it (an event's payload). A run
 * whose start waits for it is also sent with its id on its waiting gateway's channel (its
 * `settle_channel`, settleNotices.ts), delivered at the commit: with the run's row as `GET`
 * reads it when that fits a notification, so the waiting `wait: true` answers without reading it
 * again. Other runs send nothing: a notifying transaction commits behind every other one.
 */
export async function readSettled(db: SqlSource, runId: string, workspaceId: string): Promise<RunView> {
  const [{ run }] = await rowsOf<{ run: unknown }>(
    db,
    Prisma.sql`
    SELECT r.run FROM (SELECT ${runSelectJson(runId, workspaceId)} AS run) r
      LEFT JOIN LATERAL (
        SELECT pg_notify(settle_channel,
                 ${runId}::text || CASE WHEN octet_length(r.run::text) <= ${NOTICE_BODY_MAX} THEN chr(10) || r.run::text ELSE '' END)
          FROM runs WHERE id = ${runId} AND settle_channel IS NOT NULL) notice ON true`,
  );
  return runFromJson(run, runId);
}
