import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '@svc/db';
import { evaluateExpression, openRunSecrets, SandboxBusyError, secretRedactor } from '@svc/domain';
import type { ExpressionContext, RunStore, StepsData } from '@svc/domain';
import type { SecretBox } from '@svc/signing';
import { STEP_FAILED_PERMANENTLY } from '../shared/runTypes';
import { capacityRetry, expressionFailure, StepFailure } from './stepExecutors';

/** A run's data as its expressions see it, what its step outputs take together, and the redaction of the secrets it opened. */
export interface RunContext {
  ctx: ExpressionContext;
  dataBytes: number;
  redact: <T>(v: T) => T;
}

/**
 * A broken `if`, review `data` or review text is a definition error at run time: it fails the
 * step (not the worker) with its stable code (`expression_timeout`, …), which the workflow
 * records (runWorkflow's executeStep); the message goes through redaction first.
 */
export function failedPermanently(err: unknown, redact: <T>(v: T) => T): ApplicationFailure {
  if (err instanceof SandboxBusyError) return capacityRetry(err);
  const error = err instanceof StepFailure ? err.error : expressionFailure(err).error;
  return ApplicationFailure.create({
    type: STEP_FAILED_PERMANENTLY,
    message: redact(error.message),
    nonRetryable: true,
    details: [{ code: error.code }],
  });
}

/** Whether a step's `if` says to skip it. */
export async function isSkipped(stepIf: string | undefined, ctx: ExpressionContext): Promise<boolean> {
  if (!stepIf) return false;
  try {
    return !(await evaluateExpression(stepIf, ctx));
  } catch (err) {
    throw expressionFailure(err);
  }
}

/**
 * Runs' data read from PostgreSQL (history carries only ids), with the secrets each definition
 * reads: one query. Secrets are opened here, used, and removed from every value before it is
 * returned to the workflow or written anywhere.
 */
export function createRunContexts(deps: { prisma: Db; secretBox: SecretBox }, store: RunStore) {
  return {
    async contextFor(workspaceId: string, runId: string): Promise<RunContext> {
      const data = await store.loadData(runId, workspaceId);
      const secrets = await openRunSecrets(deps.prisma, deps.secretBox, workspaceId, data);
      const ctx: ExpressionContext = { input: data.input, steps: data.steps, secrets, workspaceId };
      return { ctx, dataBytes: data.dataBytes, redact: secretRedactor(Object.values(secrets)) };
    },

    /** `run` as it is once step `key` settled as `step`. */
    withStep(run: RunContext, key: string, step: StepsData[string]): RunContext {
      return { ...run, ctx: { ...run.ctx, steps: { ...run.ctx.steps, [key]: step } } };
    },
  };
}

export type RunContexts = ReturnType<typeof createRunContexts>;
