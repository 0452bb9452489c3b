import { inTransaction, Prisma, rowsOf } from '@svc/db';
import { runEventData } from '../../events/runEventData';
import { DECIDED_VIA_TIMEOUT } from '../../reviews/decidedVia';
import type { DecidedVia } from '../../reviews/decidedVia';
import type { DeliveryRef } from '../../webhooks/fanOut';
import { toReviewView } from '../runView';
import { releaseSlots } from '../slots';
import { jsonb, noteStart, publishIn, readSettled } from './context';
import type { StoreContext } from './context';
import type { AfterCommit } from './types';

/** A review's row as toReviewView reads it. */
type ReviewRow = Parameters<typeof toReviewView>[0];

/** A run's reviews: opening one (the run pauses) and its decision or expiry. */
export function createReviewStore(ctx: StoreContext) {
  return {
    /**
     * Pauses the run for a person, in one transaction: the review, the step and the run wait,
     * the run's slot goes to the next in line, `run.waiting_for_review` is recorded, and the run
     * is sent to its waiting gateway, if any (readSettled).
     */
    async openReview(
      args: { runId: string; workspaceId: string; stepKey: string; grantKey: string },
      review: { id: string; title: string; instructions: string; assignees: string[]; data: unknown; expiresAt: Date },
    ): Promise<AfterCommit> {
      const { runId, workspaceId, stepKey } = args;
      const { started, done } = await inTransaction(ctx.db, async (tx) => {
        // Opened once, however often the activity runs.
        await rowsOf(
          tx,
          Prisma.sql`INSERT INTO reviews (id, run_id, step_key, title, instructions, assignees, data, expires_at)
            VALUES (${review.id}, ${runId}, ${stepKey}, ${review.title}, ${review.instructions}, ${review.assignees}::text[],
                    ${jsonb(review.data)}::jsonb, ${review.expiresAt}::timestamptz)
            ON CONFLICT DO NOTHING`,
        );
        // A review as the run's first step starts the run, as a first step's write does.
        const [{ started }] = await rowsOf<{ started: number }>(
          tx,
          Prisma.sql`
          WITH step AS (UPDATE run_steps SET status = 'waiting_for_review', attempts = GREATEST(attempts, 1),
                          started_at = COALESCE(started_at, now()) WHERE run_id = ${runId} AND key = ${stepKey}),
          queued AS (SELECT 1 FROM runs WHERE id = ${runId} AND status = 'queued'),
          run AS (UPDATE runs SET status = 'waiting_for_review', started_at = COALESCE(started_at, now())
                   WHERE id = ${runId} AND status IN ('queued', 'running'))
          SELECT count(*)::int AS started FROM queued`,
        );
        const run = await readSettled(tx, runId, workspaceId);
        const deliveries = await publishIn(ctx, tx, {
          workspaceId,
          type: 'run.waiting_for_review',
          dedupeKey: `${review.id}:run.waiting_for_review`,
          data: runEventData(run),
        });
        // Last: the workspace's slot lock is held from here to the commit.
        const granted = await releaseSlots(tx, { workspaceId, runIds: [runId], grantKey: args.grantKey });
        return { started, done: { granted, deliveries } };
      });
      noteStart(ctx, started);
      return done;
    },

    /**
     * Records the first decision (or the expiry), puts the run back to running and records
     * `review.decided`, in one transaction. Returns when the decision was taken.
     */
    async resolveReview(
      args: { runId: string; workspaceId: string; reviewId: string },
      d: {
        status: 'approved' | 'rejected' | 'expired';
        decision: string;
        decidedBy: string | null;
        decidedVia?: DecidedVia | null;
        comment: string | null;
      },
    ): Promise<{ decidedAt: Date; deliveries: DeliveryRef[] }> {
      const { runId, workspaceId, reviewId } = args;
      // An expiry is the timer's decision, whichever version of the workflow ran it.
      const via = d.status === 'expired' ? DECIDED_VIA_TIMEOUT : (d.decidedVia ?? null);
      return inTransaction(ctx.db, async (tx) => {
        // The first decision stands: a later one (an activity retried) finds the review decided.
        const [review] = await rowsOf<ReviewRow>(
          tx,
          Prisma.sql`
          WITH decided AS (
            UPDATE reviews SET status = ${d.status}, decision = ${d.decision}, decided_by = ${d.decidedBy},
                   decided_via_type = ${via?.type ?? null}, decided_via_id = ${via?.id ?? null}, comment = ${d.comment},
                   decided_at = now()
             WHERE id = ${reviewId} AND status = 'pending' RETURNING *),
          running AS (UPDATE runs SET status = 'running' WHERE id = ${runId} AND status = 'waiting_for_review')
          SELECT v.id, v.run_id AS "runId", v.step_key AS "stepKey", v.status, v.title, v.instructions, v.assignees, v.data,
                 v.requested_at AS "requestedAt", v.expires_at AS "expiresAt", v.decision, v.decided_by AS "decidedBy",
                 v.decided_at AS "decidedAt", v.comment, v.decided_via_type AS "decidedViaType", v.decided_via_id AS "decidedViaId"
            FROM (SELECT * FROM decided UNION ALL SELECT * FROM reviews WHERE id = ${reviewId} AND NOT EXISTS (SELECT 1 FROM decided)) v`,
        );
        if (!review) throw new Error(`review ${reviewId} not found`);
        const deliveries = await publishIn(ctx, tx, {
          workspaceId,
          type: 'review.decided',
          dedupeKey: `${reviewId}:review.decided`,
          data: { ...toReviewView(review), run_id: review.runId },
        });
        return { decidedAt: new Date(review.decidedAt as Date), deliveries };
      });
    },
  };
}
