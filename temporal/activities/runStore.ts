import type { Db } from '@svc/db';
import type { RunError, StepError, StepsContext, StepStatus, TerminalRunStatus } from '../shared/runTypes';

/** Writes to the runs read model. Every write is idempotent so activity retries are harmless. */
export function createRunStore(prisma: Db) {
  const json = (v: unknown) => (v === undefined ? undefined : (v as object));
  return {
    /** The run's input and its settled steps' outputs, as expressions see them: one query. */
    async loadData(runId: string): Promise<{ input: unknown; steps: StepsContext }> {
      const [row] = await prisma.$queryRaw<{ input: unknown; steps: StepsContext }[]>`
        SELECT r.input, COALESCE(jsonb_object_agg(s.key, jsonb_build_object('output', s.output, 'status', s.status))
          FILTER (WHERE s.status IN ('succeeded', 'failed', 'skipped')), '{}'::jsonb) AS steps
        FROM runs r LEFT JOIN run_steps s ON s.run_id = r.id WHERE r.id = ${runId} GROUP BY r.id`;
      if (!row) throw new Error(`run ${runId} not found`);
      return row;
    },

    async markRunning(runId: string): Promise<void> {
      await prisma.$executeRaw`UPDATE runs SET status = 'running', started_at = COALESCE(started_at, now())
        WHERE id = ${runId} AND status IN ('queued', 'running', 'waiting_for_review')`;
    },

    async stepRunning(runId: string, stepKey: string, attempt: number): Promise<void> {
      await prisma.$executeRaw`UPDATE run_steps SET status = 'running', attempts = GREATEST(attempts, ${attempt}),
        started_at = COALESCE(started_at, now()), error = NULL
        WHERE run_id = ${runId} AND key = ${stepKey}`;
    },

    async stepAttemptFailed(runId: string, stepKey: string, error: StepError): Promise<void> {
      await prisma.runStep.update({ where: { runId_key: { runId, key: stepKey } }, data: { error: json(error) } });
    },

    async finishStep(runId: string, stepKey: string, status: StepStatus, output: unknown, error: StepError | null): Promise<void> {
      await prisma.runStep.update({
        where: { runId_key: { runId, key: stepKey } },
        data: {
          status,
          finishedAt: new Date(),
          output: output === undefined || output === null ? undefined : json(output),
          error: error ? json(error) : undefined,
        },
      });
    },

    async setStepsStatus(runId: string, stepKeys: string[], status: StepStatus): Promise<void> {
      await prisma.runStep.updateMany({ where: { runId, key: { in: stepKeys }, status: 'pending' }, data: { status } });
    },

    /** Opens a review: the review row, the step and the run wait for a person. Idempotent by review id. */
    async openReview(
      runId: string,
      stepKey: string,
      review: { id: string; title: string; instructions: string; assignees: string[]; data: unknown; expiresAt: Date },
    ): Promise<void> {
      await prisma.$transaction([
        prisma.review.upsert({
          where: { id: review.id },
          create: {
            id: review.id,
            runId,
            stepKey,
            title: review.title,
            instructions: review.instructions,
            assignees: review.assignees,
            data: review.data === undefined || review.data === null ? undefined : json(review.data),
            expiresAt: review.expiresAt,
          },
          update: {},
        }),
        prisma.$executeRaw`UPDATE run_steps SET status = 'waiting_for_review', attempts = GREATEST(attempts, 1),
          started_at = COALESCE(started_at, now()) WHERE run_id = ${runId} AND key = ${stepKey}`,
        prisma.$executeRaw`UPDATE runs SET status = 'waiting_for_review' WHERE id = ${runId} AND status = 'running'`,
      ]);
    },

    /** Records the first decision (or the expiry) and puts the run back to running. */
    async resolveReview(
      runId: string,
      reviewId: string,
      d: { status: string; decision: string; decidedBy: string | null; comment: string | null },
    ): Promise<Date> {
      await prisma.$transaction([
        prisma.review.updateMany({
          where: { id: reviewId, status: 'pending' },
          data: { status: d.status, decision: d.decision, decidedBy: d.decidedBy, comment: d.comment, decidedAt: new Date() },
        }),
        prisma.$executeRaw`UPDATE runs SET status = 'running' WHERE id = ${runId} AND status = 'waiting_for_review'`,
      ]);
      const row = await prisma.review.findUniqueOrThrow({ where: { id: reviewId }, select: { decidedAt: true } });
      return row.decidedAt!;
    },

    /** Ends a queued or waiting run as cancelled: its pending review and unfinished steps too. */
    async cancelRun(runId: string): Promise<void> {
      await prisma.$transaction([
        prisma.review.updateMany({ where: { runId, status: 'pending' }, data: { status: 'cancelled' } }),
        prisma.$executeRaw`UPDATE run_steps SET status = 'cancelled',
          finished_at = CASE WHEN started_at IS NOT NULL THEN now() ELSE NULL END
          WHERE run_id = ${runId} AND status IN ('pending', 'running', 'waiting_for_review')`,
        prisma.$executeRaw`UPDATE runs SET status = 'cancelled', finished_at = COALESCE(finished_at, now())
          WHERE id = ${runId} AND status IN ('queued', 'waiting_for_review', 'cancelled')`,
      ]);
    },

    /** Sets the final state once; a retried call after success changes nothing. */
    async completeRun(runId: string, status: TerminalRunStatus, output: unknown, error: RunError | null): Promise<TerminalRunStatus> {
      await prisma.run.updateMany({
        where: { id: runId, status: { notIn: ['succeeded', 'failed', 'cancelled'] } },
        data: {
          status,
          finishedAt: new Date(),
          output: output === null || output === undefined ? undefined : json(output),
          error: error ? json(error) : undefined,
        },
      });
      const row = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
      // The first final status stands (e.g. a cancellation that won a race).
      return row.status as TerminalRunStatus;
    },
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
