import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import type { Db, PreparedSql } from '@svc/db';
import {
  evaluateExpression,
  expressionErrorCode,
  SandboxBusyError,
  openRunSecrets,
  outputOverLimit,
  renderReviewText,
  reviewRequestMail,
  secretRedactor,
  stepOutputProblem,
  stepOutputReference,
} from '@svc/domain';
import type { AfterCommit, ExpressionContext, FinishRun, Mailer, StepsData, StepWrite } from '@svc/domain';
import { createRunStore } from '@svc/domain';
import type { ReviewLinkSigner, SecretBox } from '@svc/signing';
import type { SvcMetrics } from './metrics';
import type {
  BeginStepResult,
  ExecuteStepInput,
  ExecuteStepResult,
  FinishRunInput,
  FinishStepInput,
  OpenReviewInput,
  OpenReviewResult,
  ResolveReviewInput,
  ReviewOutcome,
  RunError,
  SlotRequest,
  TerminalRunStatus,
} from '../shared/runTypes';
import { STEP_FAILED_PERMANENTLY } from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';
import { claimAndTell } from './slotActivities';
import { capacityRetry, expressionFailure, runCondition, runHttp, runTransform, StepFailure } from './stepExecutors';
import type { StepOutcome } from './stepExecutors';

/** A run's data as its expressions see it, what its step outputs take together, and the redaction of the secrets it opened. */
interface RunContext {
  ctx: ExpressionContext;
  dataBytes: number;
  redact: <T>(v: T) => T;
}

/** Writes a step's end: alone, or with the run's (executeStep). */
type SettleStep = (args: ExecuteStepInput, run: RunContext, w: StepWrite, result: ExecuteStepResult) => Promise<ExecuteStepResult>;

/** Heartbeats while `fn` runs: how a cancellation reaches a long http step (API.md §12). */
async function whileBeating<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 1_000);
  try {
    return await fn();
  } finally {
    clearInterval(beat);
  }
}

/**
 * A broken `if`, review `data` or review text is a definition error at run time: it fails the
 * step (not the worker) with its stable code (`expression_timeout`, …), which the workflow
 * records (runWorkflow's executeStep); the message goes through redaction first.
 */
function failedPermanently(err: unknown, redact: <T>(v: T) => T): ApplicationFailure {
  if (err instanceof SandboxBusyError) return capacityRetry(err);
  const error = err instanceof StepFailure ? err.error : expressionFailure(err).error;
  return ApplicationFailure.create({
    type: STEP_FAILED_PERMANENTLY,
    message: redact(error.message),
    nonRetryable: true,
    details: [{ code: error.code }],
  });
}

/**
 * How long the outbox relay leaves a delivery to the activity that recorded it before
 * starting its workflow itself (only happens when that start was interrupted).
 */
export const PUBLISHER_DISPATCH_GRACE_MS = 30_000;

export interface RunActivityDeps {
  prisma: Db;
  /** Named statements on the pool for the hot path of every run (@svc/db PreparedSql). */
  sql: PreparedSql;
  secretBox: SecretBox;
  /** SSRF-guarded undici dispatcher for `http` steps. */
  dispatcher: Dispatcher;
  /** Mails assignees a signed link to the review page when a run pauses. */
  reviewNotices: { mailer: Mailer; links: ReviewLinkSigner; baseUrl: string };
  metrics: SvcMetrics;
}

/**
 * Activities of the run workflow. Secrets are loaded here, used, and removed from
 * every value before it is returned to the workflow or written anywhere, so they
 * never reach Temporal history or the database in clear.
 */
export function createRunActivities(deps: RunActivityDeps, after: AfterCommitActions) {
  const store = createRunStore(deps.prisma, { dispatchDelayMs: PUBLISHER_DISPATCH_GRACE_MS, observer: deps.metrics, sql: deps.sql });

  /** The run's data read from PostgreSQL (history carries only ids), with the secrets its definition reads: one query. */
  async function contextFor(workspaceId: string, runId: string): Promise<RunContext> {
    const data = await store.loadData(runId, workspaceId);
    const secrets = await openRunSecrets(deps.prisma, deps.secretBox, workspaceId, data);
    const ctx: ExpressionContext = { input: data.input, steps: data.steps, secrets, workspaceId };
    return { ctx, dataBytes: data.dataBytes, redact: secretRedactor(Object.values(secrets)) };
  }

  /** `run` as it is once step `key` settled as `step`. */
  function withStep(run: RunContext, key: string, step: StepsData[string]): RunContext {
    return { ...run, ctx: { ...run.ctx, steps: { ...run.ctx.steps, [key]: step } } };
  }

  async function isSkipped(stepIf: string | undefined, ctx: ExpressionContext): Promise<boolean> {
    if (!stepIf) return false;
    try {
      return !(await evaluateExpression(stepIf, ctx));
    } catch (err) {
      throw expressionFailure(err);
    }
  }

  /**
   * Runs one attempt of an http, transform or condition step. Transform and condition steps
   * run as local activities and are written once, at their end; an http step is marked
   * running first, since it can take a while. `settle` writes the step's end (see executeStep).
   */
  async function attemptStep(args: ExecuteStepInput, settle: SettleStep): Promise<ExecuteStepResult> {
    const { runId, step } = args;
    // A queued run does no work (no expression, no request) before it holds its slot.
    if (args.claim && !(await claimAndTell(deps, after, args.claim))) return { status: 'queued' };
    const info = Context.current().info;
    const attempt = info.attempt;
    const lastAttempt = attempt >= step.retry.max_attempts;
    const startedAt = new Date();
    const run = await contextFor(args.workspaceId, args.runId);
    const { ctx, redact } = run;
    try {
      if (await isSkipped(step.if, ctx)) return await settle(args, run, { status: 'skipped', attempts: 0 }, { status: 'skipped' });
      let outcome: StepOutcome;
      if (step.type === 'http') {
        await store.startStep(runId, step.key, attempt);
        outcome = await whileBeating(() => runHttp(step, ctx, deps.dispatcher, Context.current().cancellationSignal));
      } else if (step.type === 'transform') outcome = await runTransform(step, ctx);
      else if (step.type === 'condition') outcome = await runCondition(step, ctx);
      else throw new Error(`step type ${step.type} is not executed by an activity`);
      const output = redact(outcome.output);
      const problem = stepOutputProblem(output, run.dataBytes);
      if (problem) throw new StepFailure(problem, false);
      return await settle(
        args,
        run,
        { status: 'succeeded', attempts: attempt, startedAt, output, fence: attempt },
        { status: 'succeeded', ...(outcome.jumpTo ? { jumpTo: outcome.jumpTo } : {}) },
      );
    } catch (err) {
      // Cancelled (the run is being cancelled): the workflow records the ending, nothing here.
      if (Context.current().cancellationSignal.aborted) throw new CancelledFailure('The step was cancelled');
      if (err instanceof SandboxBusyError) throw capacityRetry(err);
      const failure = err instanceof StepFailure ? err : new StepFailure({ code: 'step_failed', message: (err as Error).message }, true);
      const error = redact(failure.error);
      const output = redact(failure.output);
      if (failure.retryable && !lastAttempt) {
        // A local step is otherwise written only at its end: show that it is under way.
        if (step.type !== 'http') await store.startStep(runId, step.key, attempt);
        await store.stepAttemptFailed(runId, step.key, error, attempt);
        // Temporal schedules the next attempt with the step's backoff.
        throw ApplicationFailure.retryable(error.message, error.code);
      }
      // A failed step keeps its output (an http error's response) only when it can be stored.
      const kept = output === undefined || stepOutputProblem(output, run.dataBytes) ? null : output;
      return await settle(
        args,
        run,
        { status: 'failed', attempts: attempt, startedAt, output: kept, error, fence: attempt },
        { status: 'failed', error },
      );
    }
  }

  /** How the run ends: its status, and its output worked out (`known`: the run's data as it now is, when the caller has it). */
  async function runEnding(args: FinishRunInput, known?: RunContext): Promise<FinishRun> {
    let status: TerminalRunStatus = args.status;
    let error: RunError | null = args.error ?? null;
    let output: FinishRun['output'] = null;
    // An output that names one step's output (`steps.<key>.output`) is that output as stored.
    const fromStep = args.outputExpression ? stepOutputReference(args.outputExpression) : args.lastStepKey;
    if (status === 'succeeded' && args.outputExpression && !fromStep) {
      const { ctx, redact } = known ?? (await contextFor(args.workspaceId, args.runId));
      try {
        const value = redact(await evaluateExpression(args.outputExpression, ctx));
        const over = outputOverLimit(value);
        if (over) {
          status = 'failed';
          error = { code: over.code, message: `The run's ${over.message}`, step_key: null };
        } else output = { value };
      } catch (err) {
        if (err instanceof SandboxBusyError) throw capacityRetry(err);
        status = 'failed';
        error = redact({ code: expressionErrorCode(err), message: `output: ${(err as Error).message}`, step_key: null });
      }
    } else if (status === 'succeeded' && fromStep) output = { fromStep };
    return { runId: args.runId, workspaceId: args.workspaceId, status, output, error, grantKey: args.grantKey };
  }

  /** After an ending's commit: the next runs are told of their slot and the deliveries started. */
  async function ended(args: SlotRequest, done: AfterCommit & { status: TerminalRunStatus }): Promise<{ status: TerminalRunStatus }> {
    await after.done(args.workspaceId, args.grantKey, done);
    return { status: done.status };
  }

  /** A step's end, written alone. */
  async function settleStep(args: ExecuteStepInput, _run: RunContext, w: StepWrite, result: ExecuteStepResult): Promise<ExecuteStepResult> {
    await store.finishStep(args.runId, args.step.key, w);
    return result;
  }

  /**
   * A local step's end, in one transaction with the run's ending when the workflow asked for it
   * (its last step, unless it jumps), where the output expression sees the step as stored.
   */
  async function settleLocalStep(
    args: ExecuteStepInput,
    run: RunContext,
    w: StepWrite,
    result: ExecuteStepResult,
  ): Promise<ExecuteStepResult> {
    const end = args.finishRun && !(result.status === 'succeeded' && result.jumpTo) ? args.finishRun : undefined;
    if (!end) return settleStep(args, run, w, result);
    const failed = result.status === 'failed';
    const ending: FinishRunInput = {
      runId: args.runId,
      workspaceId: args.workspaceId,
      grantKey: end.grantKey,
      outputExpression: end.outputExpression,
      status: failed ? 'failed' : 'succeeded',
      lastStepKey: result.status === 'succeeded' ? args.step.key : end.lastStepKey,
      error: failed ? { ...result.error, step_key: args.step.key } : undefined,
    };
    // Only an output expression the sandbox evaluates needs the step as stored; any other
    // ending goes out with the step's write.
    const readBack = Boolean(ending.outputExpression && !stepOutputReference(ending.outputExpression));
    const out = await store.settleLocalStep(
      args.runId,
      args.step.key,
      { ...w, readBack },
      readBack ? (stored) => runEnding(ending, withStep(run, args.step.key, stored)) : await runEnding(ending),
    );
    // Fenced off (an earlier attempt settled the step): the run still ends, on its data as stored.
    const done = out.end ?? (await store.finishRun(await runEnding(ending)));
    return { ...result, run: await ended(ending, done) };
  }

  return {
    /** Evaluates `if` and marks a workflow-driven step (delay) as started. */
    async beginStep(args: ExecuteStepInput): Promise<BeginStepResult> {
      const { ctx, redact } = await contextFor(args.workspaceId, args.runId);
      let skipped: boolean;
      try {
        skipped = await isSkipped(args.step.if, ctx);
      } catch (err) {
        throw failedPermanently(err, redact);
      }
      if (skipped) await store.finishStep(args.runId, args.step.key, { status: 'skipped', attempts: 0 });
      else await store.startStep(args.runId, args.step.key, 1);
      return { skipped };
    },

    /**
     * Runs one attempt of an http, transform or condition step; when asked, first takes the run's
     * slot (its first step, run locally), and ends the run (its last step, run locally) in the
     * step's transaction, each saving a local activity.
     */
    async executeStep(args: ExecuteStepInput): Promise<ExecuteStepResult> {
      return attemptStep(args, settleLocalStep);
    },

    /** Evaluates `if` and the reviewer's `data`, then opens the review (API.md §5). */
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

    async finishStep(args: FinishStepInput): Promise<void> {
      await store.finishStep(args.runId, args.stepKey, { status: args.status, attempts: 1, output: args.output, error: args.error });
    },

    /** A reset branch re-runs the run from `fromStep` (API.md §12). */
    async reopenRun(args: { runId: string; fromStep: number }): Promise<void> {
      await store.reopenRun(args.runId, args.fromStep);
    },

    /** Steps passed over by a condition's jump. */
    async skipSteps(args: { runId: string; stepKeys: string[] }): Promise<void> {
      await store.skipSteps(args.runId, args.stepKeys);
    },

    /**
     * Ends the run: works out its output, then one transaction holds the final status, the
     * event, its deliveries and the slot's release; then the next runs are told and the
     * deliveries started.
     */
    finishRun: async (args: FinishRunInput) => ended(args, await store.finishRun(await runEnding(args))),
  };
}

export type RunActivities = ReturnType<typeof createRunActivities>;
