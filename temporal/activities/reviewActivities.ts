import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '@svc/db';
import { evaluateExpression, renderReviewText, reviewRequestMail } from '@svc/domain';
import type { Mailer, RunStore } from '@svc/domain';
import type { ReviewLinkSigner } from '@svc/signing';
import type { OpenReviewInput, OpenReviewResult, ResolveReviewInput, ReviewOutcome } from '../shared/runTypes';
import { STEP_FAILED_PERMANENTLY } from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';
import { failedPermanently, isSkipped } from './runContext';
import type { RunContexts } from './runContext';

export interface ReviewActivityDeps {
  prisma: Db;
  /** Mails assignees a signed link to the review page when a run pauses. */
  reviewNotices: { mailer: Mailer; links: ReviewLinkSigner; baseUrl: string };
}

/** The run workflow's review activities: opening a review, mailing its assignees, recording its outcome. */
export function createReviewActivities(deps: ReviewActivityDeps, store: RunStore, runs: RunContexts, after: AfterCommitActions) {
  const { contextFor } = runs;
  return {
    /** Evaluates `if` and the reviewer's `data`, then opens the review. */
    async openReview(args: OpenReviewInput): Promise<OpenReviewResult> {
      const { step } = args;
      if (step.type !== 'review') throw ApplicationFailure.nonRetryable(`step ${step.key} is not a review`, STEP_FAILED_PERMANENTLY);
      const { ctx, redact } = await contextFor(args.workspaceId, args.runId);
      let data: unknown = null;
      let text: { title: string; instructions: string };
      try {
        if (await isSkipped(step.if, ctx)) {
          await store.finishStep(args.runId, step.key, { status: 'skipped', attempts: 0 });
          return { skipped: true };
        }
        if (step.data) data = redact(await evaluateExpression(step.data, ctx));
        text = redact(await renderReviewText(step, ctx));
      } catch (err) {
        throw failedPermanently(err, redact);
      }
      const done = await store.openReview(
        { runId: args.runId, workspaceId: args.workspaceId, stepKey: step.key, grantKey: args.grantKey },
        {
          id: args.reviewId,
          title: text.title,
          instructions: text.instructions,
          assignees: step.assignees,
          data,
          expiresAt: new Date(Date.now() + step.timeout_ms),
        },
      );
      await after.done(args.workspaceId, args.grantKey, done);
      return { skipped: false };
    },

    /** One mail per assignee, each with a link of their own (the link says who decided). */
    async notifyReviewers({ reviewId }: { reviewId: string }): Promise<{ sent: number }> {
      const review = await deps.prisma.review.findUniqueOrThrow({
        where: { id: reviewId },
        include: { run: { include: { workflow: true } } },
      });
      if (review.status !== 'pending') return { sent: 0 };
      const { mailer, links, baseUrl } = deps.reviewNotices;
      for (const email of review.assignees) {
        const token = links.sign({ reviewId, email, expiresAt: review.expiresAt.getTime() });
        const url = `${baseUrl}/reviews/${reviewId}?token=${encodeURIComponent(token)}`;
        await mailer.send({
          to: [email],
          ...reviewRequestMail({
            title: review.title,
            workflowName: review.run.workflow.name,
            runId: review.runId,
            url,
            expiresAt: review.expiresAt,
          }),
        });
      }
      return { sent: review.assignees.length };
    },

    /** Records the decision (or the expiry) and `review.decided`; returns the step's output. */
    async resolveReview(args: ResolveReviewInput): Promise<ReviewOutcome> {
      const { decidedAt, deliveries } = await store.resolveReview(args, args);
      await after.startDeliveries(deliveries);
      return { decision: args.decision, decided_by: args.decidedBy, decided_at: decidedAt.toISOString(), comment: args.comment };
    },
  };
}
