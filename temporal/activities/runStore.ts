import type { Db } from '@svc/db';
import type { RunError, StepError, StepStatus, TerminalRunStatus } from '../shared/runTypes';

/** Writes to the runs read model. Every write is idempotent so activity retries are harmless. */
export function createRunStore(prisma: Db) {
  const json = (v: unknown) => (v === undefined ? undefined : (v as object));
  return {
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
