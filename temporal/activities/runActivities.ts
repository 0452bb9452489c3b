import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import type { Db, PreparedSql } from '@svc/db';
import {
  evaluateExpression,
  expressionErrorCode,
  SandboxBusyError,
  outputOverLimit,
  stepOutputProblem,
  stepOutputReference,
} from '@svc/domain';
import type { AfterCommit, FinishRun, RunStore, StepWrite } from '@svc/domain';
import type { SecretBox } from '@svc/signing';
import type { SvcMetrics } from './metrics';
import type {
  BeginStepResult,
  ExecuteStepInput,
  ExecuteStepResult,
  FinishRunInput,
  FinishStepInput,
  RunError,
  SlotRequest,
  TerminalRunStatus,
} from '../shared/runTypes';
import type { AfterCommitActions } from './afterCommit';
import { failedPermanently, isSkipped } from './runContext';
import type { RunContext, RunContexts } from './runContext';
import { logRunFailed } from './runFailureLog';
import { claimAndTell } from './slotActivities';
import { capacityRetry, expressionFailure, runCondition, runHttp, runTransform, StepFailure } from './stepExecutors';
import type { StepOutcome } from './stepExecutors';

/** Writes a step's end: alone, or with the run's (executeStep). */
type SettleStep = (args: ExecuteStepInput, run: RunContext, w: StepWrite, result: ExecuteStepResult) => Promise<ExecuteStepResult>;

/** Heartbeats while `fn` runs: how a cancellation reaches a long http step. */
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
  metrics: SvcMetrics;
}

/**
 * The run workflow's step and ending activities. Secrets are loaded here (runContext.ts), used,
 * and removed from every value before it is returned to the workflow or written anywhere, so
 * they never reach Temporal history or the database in clear.
 */
export function createRunActivities(deps: RunActivityDeps, store: RunStore, runs: RunContexts, after: AfterCommitActions) {
  const { contextFor, withStep } = runs;

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
    if (done.status === 'failed') await logRunFailed(deps.prisma, args.runId);
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

    async finishStep(args: FinishStepInput): Promise<void> {
      await store.finishStep(args.runId, args.stepKey, { status: args.status, attempts: 1, output: args.output, error: args.error });
    },

    /** A reset branch re-runs the run from `fromStep`. */
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
