import type { Db } from '@svc/db';
import { AppError } from '../errors';
import type { ReviewDecision, RunControl } from '../runs/launcher';
import { toReviewView } from '../runs/runView';
import type { ReviewView } from '../runs/runView';

export type DecisionWord = 'approve' | 'approved' | 'reject' | 'rejected';

export function normalizeDecision(word: DecisionWord): 'approved' | 'rejected' {
  return word === 'approve' || word === 'approved' ? 'approved' : 'rejected';
}

const DECIDED = new Set(['approved', 'rejected', 'expired']);

/**
 * Decides the review a run is waiting on. Whoever comes first wins inside the run's
 * workflow; the others get 409 review_already_decided. `runId` scopes by workspace
 * (API); `reviewId` is the operator's path (CLI, review page).
 */
export async function decideReview(
  deps: { prisma: Db; control: RunControl },
  args: ({ workspaceId: string; runId: string } | { reviewId: string }) & Omit<ReviewDecision, 'reviewId'>,
): Promise<ReviewView & { run_id: string }> {
  const review =
    'reviewId' in args
      ? await deps.prisma.review.findUnique({ where: { id: args.reviewId }, include: { run: { select: { temporalWorkflowId: true } } } })
      : await latestReviewOfRun(deps.prisma, args.workspaceId, args.runId);
  if (!review) {
    if ('reviewId' in args) throw new AppError('not_found', `Review ${args.reviewId} not found`);
    throw new AppError('no_pending_review', 'This run has no review waiting for a decision');
  }
  if (DECIDED.has(review.status)) throw new AppError('review_already_decided', `This review was already decided (${review.status})`);
  if (review.status !== 'pending') throw new AppError('no_pending_review', `This review is ${review.status}`);

  const outcome = await deps.control.decide(
    { runId: review.runId, temporalWorkflowId: review.run.temporalWorkflowId },
    {
      reviewId: review.id,
      decision: args.decision,
      comment: args.comment ?? null,
      decidedBy: args.decidedBy ?? null,
      decidedVia: args.decidedVia,
    },
  );
  const after = await deps.prisma.review.findUniqueOrThrow({ where: { id: review.id } });
  // A closed workflow never saw this decision: the run ended first (cancelled, or decided by another).
  if (outcome === 'closed') {
    if (DECIDED.has(after.status)) throw new AppError('review_already_decided', `This review was already decided (${after.status})`);
    throw new AppError('no_pending_review', 'The run has already finished');
  }
  return { ...toReviewView(after), run_id: after.runId };
}

async function latestReviewOfRun(db: Db, workspaceId: string, runId: string) {
  const run = await db.run.findFirst({ where: { id: runId, workspaceId }, select: { id: true } });
  if (!run) throw new AppError('run_not_found', `Run ${runId} not found`);
  return db.review.findFirst({
    where: { runId },
    orderBy: { requestedAt: 'desc' },
    include: { run: { select: { temporalWorkflowId: true } } },
  });
}

export async function listReviews(
  db: Db,
  args: { workspaceId: string; pendingOnly?: boolean },
): Promise<(ReviewView & { run_id: string })[]> {
  const rows = await db.review.findMany({
    where: { run: { workspaceId: args.workspaceId }, ...(args.pendingOnly ? { status: 'pending' } : {}) },
    orderBy: { requestedAt: 'desc' },
    take: 200,
  });
  return rows.map((r) => ({ ...toReviewView(r), run_id: r.runId }));
}
