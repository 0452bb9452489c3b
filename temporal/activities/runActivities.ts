import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import type { Db } from '@svc/db';
import {
  evaluateExpression,
  jsonBytes,
  loadWorkspaceSecrets,
  MAX_STEP_OUTPUT_BYTES,
  redactSecrets,
  renderReviewText,
  reviewRequestMail,
} from '@svc/domain';
import type { ExpressionContext, Mailer } from '@svc/domain';
import type { ReviewLinkSigner, SecretBox } from '@svc/signing';
import type {
  BeginStepResult,
  CompleteRunInput,
  ExecuteStepInput,
  ExecuteStepResult,
  CancelRunInput,
  FinishStepInput,
  OpenReviewInput,
  OpenReviewResult,
  ResolveReviewInput,
  ReviewOutcome,
  RunError,
  SkipStepsInput,
  TerminalRunStatus,
} from '../shared/runTypes';
import { createRunStore } from './runStore';
import { expressionFailure, runCondition, runHttp, runTransform, StepFailure } from './stepExecutors';
import type { StepOutcome } from './stepExecutors';

export interface RunActivityDeps {
  prisma: Db;
  secretBox: SecretBox;
  /** SSRF-guarded undici dispatcher for `http` steps. */
  dispatcher: Dispatcher;
  /** Mails assignees a signed link to the review page when a run pauses. */
  reviewNotices: { mailer: Mailer; links: ReviewLinkSigner; baseUrl: string };
}

/**
 * Activities of the run workflow. Secrets are loaded here, used, and removed from
 * every value before it is returned to the workflow or written anywhere, so they
 * never reach Temporal history or the database in clear.
 */
export function createRunActivities(deps: RunActivityDeps) {
  const store = createRunStore(deps.prisma);

  /** The run's data read from PostgreSQL (history carries only ids), with the workspace's secrets. */
  async function contextFor(workspaceId: string, runId: string) {
    const [secrets, { input, steps }] = await Promise.all([
      loadWorkspaceSecrets(deps.prisma, deps.secretBox, workspaceId),
      store.loadData(runId),
    ]);
    const values = Object.values(secrets);
    const ctx: ExpressionContext = { input, steps, secrets };
    return { ctx, redact: <T>(v: T): T => redactSecrets(v, values) };
  }

  async function isSkipped(stepIf: string | undefined, ctx: ExpressionContext): Promise<boolean> {
    if (!stepIf) return false;
    try {
      return !(await evaluateExpression(stepIf, ctx));
    } catch (err) {
      throw expressionFailure(err);
    }
  }

  return {
    async markRunRunning({ runId }: { runId: string }): Promise<void> {
      await store.markRunning(runId);
    },

    /** Evaluates `if` and marks a workflow-driven step (delay, review) as started. */
    async beginStep(args: ExecuteStepInput): Promise<BeginStepResult> {
      const { ctx } = await contextFor(args.workspaceId, args.runId);
      let skipped: boolean;
      try {
        skipped = await isSkipped(args.step.if, ctx);
      } catch (err) {
        // A broken `if` is a definition error at run time: fail the step, not the worker.
        throw ApplicationFailure.nonRetryable((err as Error).message, 'StepFailedPermanently');
      }
      if (skipped) await store.finishStep(args.runId, args.step.key, 'skipped', null, null);
      else await store.stepRunning(args.runId, args.step.key, 1);
      return { skipped };
    },

    async executeStep(args: ExecuteStepInput): Promise<ExecuteStepResult> {
      const { runId, step } = args;
      const info = Context.current().info;
      const attempt = info.attempt;
      const lastAttempt = attempt >= step.retry.max_attempts;
      const { ctx, redact } = await contextFor(args.workspaceId, args.runId);
      try {
        if (await isSkipped(step.if, ctx)) {
          await store.finishStep(runId, step.key, 'skipped', null, null);
          return { status: 'skipped' };
        }
        await store.stepRunning(runId, step.key, attempt);
        let outcome: StepOutcome;
        if (step.type === 'http') outcome = await runHttp(step, ctx, deps.dispatcher);
        else if (step.type === 'transform') outcome = await runTransform(step, ctx);
        else if (step.type === 'condition') outcome = await runCondition(step, ctx);
        else throw new Error(`step type ${step.type} is not executed by an activity`);
        const output = redact(outcome.output);
        if (jsonBytes(output) > MAX_STEP_OUTPUT_BYTES) {
          throw new StepFailure(
            { code: 'step_output_too_large', message: `The step's output is larger than ${MAX_STEP_OUTPUT_BYTES} bytes` },
            false,
          );
        }
        await store.finishStep(runId, step.key, 'succeeded', output, null);
        return { status: 'succeeded', ...(outcome.jumpTo ? { jumpTo: outcome.jumpTo } : {}) };
      } catch (err) {
        const failure = err instanceof StepFailure ? err : new StepFailure({ code: 'step_failed', message: (err as Error).message }, true);
        const error = redact(failure.error);
        const output = redact(failure.output);
        if (failure.retryable && !lastAttempt) {
          await store.stepAttemptFailed(runId, step.key, error);
          // Temporal schedules the next attempt with the step's backoff.
          throw ApplicationFailure.retryable(error.message, error.code);
        }
        await store.finishStep(runId, step.key, 'failed', output ?? null, error);
        return { status: 'failed', error };
      }
    },

    /** Evaluates `if` and the reviewer's `data`, then opens the review (API.md §5). */
    async openReview(args: OpenReviewInput): Promise<OpenReviewResult> {
      const { step } = args;
      if (step.type !== 'review') throw ApplicationFailure.nonRetryable(`step ${step.key} is not a review`, 'StepFailedPermanently');
      const { ctx, redact } = await contextFor(args.workspaceId, args.runId);
      let data: unknown = null;
      let text: { title: string; instructions: string };
      try {
        if (await isSkipped(step.if, ctx)) {
          await store.finishStep(args.runId, step.key, 'skipped', null, null);
          return { skipped: true };
        }
        if (step.data) data = redact(await evaluateExpression(step.data, ctx));
        text = redact(await renderReviewText(step, ctx));
      } catch (err) {
        throw ApplicationFailure.nonRetryable(redact((err as Error).message), 'StepFailedPermanently');
      }
      await store.openReview(args.runId, step.key, {
        id: args.reviewId,
        title: text.title,
        instructions: text.instructions,
        assignees: step.assignees,
        data,
        expiresAt: new Date(Date.now() + step.timeout_ms),
      });
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

    async resolveReview(args: ResolveReviewInput): Promise<ReviewOutcome> {
      const decidedAt = await store.resolveReview(args.runId, args.reviewId, args);
      return { decision: args.decision, decided_by: args.decidedBy, decided_at: decidedAt.toISOString(), comment: args.comment };
    },

    async cancelRun(args: CancelRunInput): Promise<void> {
      await store.cancelRun(args.runId);
    },

    async finishStep(args: FinishStepInput): Promise<void> {
      await store.finishStep(args.runId, args.stepKey, args.status, args.output ?? null, args.error ?? null);
    },

    async setStepsStatus(args: SkipStepsInput): Promise<void> {
      await store.setStepsStatus(args.runId, args.stepKeys, args.status);
    },

    async completeRun(args: CompleteRunInput): Promise<{ status: TerminalRunStatus }> {
      let status: TerminalRunStatus = args.status;
      let error: RunError | null = args.error ?? null;
      let output: unknown = null;
      const { ctx, redact } = await contextFor(args.workspaceId, args.runId);
      if (status === 'succeeded') {
        try {
          output = args.outputExpression
            ? await evaluateExpression(args.outputExpression, ctx)
            : ((args.lastStepKey && ctx.steps[args.lastStepKey]?.output) ?? null);
        } catch (err) {
          status = 'failed';
          error = { code: 'expression_error', message: `output: ${(err as Error).message}`, step_key: null };
        }
        if (jsonBytes(output) > MAX_STEP_OUTPUT_BYTES) {
          status = 'failed';
          output = null;
          error = { code: 'output_too_large', message: `The run's output is larger than ${MAX_STEP_OUTPUT_BYTES} bytes`, step_key: null };
        }
      }
      const final = await store.completeRun(args.runId, status, redact(output), error ? redact(error) : null);
      return { status: final };
    },
  };
}

export type RunActivities = ReturnType<typeof createRunActivities>;
