import { ApplicationFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import {
  evaluateExpression,
  ExpressionError,
  expressionErrorCode,
  HttpRequestError,
  performHttpRequest,
  redactHeaders,
  renderHttpRequest,
  SandboxBusyError,
} from '@svc/domain';
import type { ConditionStep, ExpressionContext, HttpStep, TransformStep } from '@svc/domain';
import type { StepError } from '../shared/runTypes';
import { SANDBOX_BUSY } from '../shared/runTypes';

/**
 * A step attempt that failed. `retryable` failures (timeouts, resets, 5xx, 429) get
 * another attempt under the step's retry policy; the others (bad expression, refused
 * address, failed condition, 4xx) end the step at once.
 */
export class StepFailure extends Error {
  constructor(
    readonly error: StepError,
    readonly retryable: boolean,
    readonly output?: unknown,
  ) {
    super(error.message);
  }
}

export type StepOutcome = { output: unknown; jumpTo?: string };

/** An expression's failure as the step's. Sandbox capacity is not the step's failure: it passes through. */
export function expressionFailure(err: unknown): StepFailure {
  if (err instanceof SandboxBusyError) throw err;
  const message = err instanceof ExpressionError || err instanceof Error ? err.message : String(err);
  return new StepFailure({ code: expressionErrorCode(err), message }, false);
}

export async function runTransform(step: TransformStep, ctx: ExpressionContext): Promise<StepOutcome> {
  try {
    return { output: await evaluateExpression(step.expression, ctx) };
  } catch (err) {
    throw expressionFailure(err);
  }
}

export async function runCondition(step: ConditionStep, ctx: ExpressionContext): Promise<StepOutcome> {
  let value: unknown;
  try {
    value = await evaluateExpression(step.expression, ctx);
  } catch (err) {
    throw expressionFailure(err);
  }
  if (value === true) return { output: { passed: true } };
  if (step.else) return { output: { passed: false }, jumpTo: step.else };
  throw new StepFailure({ code: 'condition_failed', message: step.message ?? `Condition "${step.key}" was not met` }, false, {
    passed: false,
  });
}

/**
 * The sandbox had no room for an expression in time: never the step's fault, so nothing is recorded
 * and the activity is retried (under the step's platform allowance, or bookkeeping's unbounded retry).
 */
export function capacityRetry(err: SandboxBusyError): ApplicationFailure {
  return ApplicationFailure.create({ type: SANDBOX_BUSY, message: err.message, nonRetryable: false });
}

const RETRYABLE_KINDS = new Set(['timeout', 'connection', 'dns']);

export async function runHttp(step: HttpStep, ctx: ExpressionContext, dispatcher: Dispatcher, signal?: AbortSignal): Promise<StepOutcome> {
  let rendered: { url: unknown; headers: unknown; body: unknown };
  try {
    rendered = await renderHttpRequest(step, ctx);
  } catch (err) {
    throw expressionFailure(err);
  }
  let response;
  try {
    response = await performHttpRequest({
      method: step.method,
      url: String(rendered.url),
      headers: stringRecord(rendered.headers),
      body: rendered.body,
      timeoutMs: step.timeout_ms,
      dispatcher,
      signal,
    });
  } catch (err) {
    if (err instanceof HttpRequestError) {
      const error = { code: `http_${err.kind}`, message: err.message };
      throw new StepFailure(error, RETRYABLE_KINDS.has(err.kind));
    }
    throw err;
  }
  const output = { status: response.status, headers: redactHeaders(response.headers), body: response.body };
  const ok = (response.status >= 200 && response.status < 300) || step.allow_status.includes(response.status);
  if (ok) return { output };
  const error = { code: 'http_status', message: `${step.method} answered ${response.status}` };
  // 5xx and 429 may pass on another attempt; other statuses will not.
  throw new StepFailure(error, response.status >= 500 || response.status === 429, output);
}

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object') for (const [k, val] of Object.entries(v)) if (val !== null && val !== undefined) out[k] = String(val);
  return out;
}
