import jsonata from 'jsonata';
import RE2 from 're2';
import type { ExpressionContext } from '../definitions/types';
import { ExpressionError, toExpressionError } from './expressionError';
import { runSandboxed } from './sandbox/pool';
import { SANDBOX_LIMITS } from './sandbox/limits';

export { ExpressionError, toExpressionError };

/**
 * The expression language is JSONata 2 (https://docs.jsonata.org).
 *
 * The context `{input, steps, secrets}` is the input document, so `input.name`,
 * `steps.shape.output.greeting` and `secrets.TOKEN` work at the top level. The same
 * three are also bound as variables (`$input`, `$steps`, `$secrets`) for use inside
 * nested paths, where plain names are relative to the current item.
 *
 * Guard rails: every evaluation has a time limit (default 1 s), a recursion depth
 * limit and a sequence size limit (JSONata's own `timeout` / `stack` / `sequence`
 * options); regexes run on RE2 (linear time, no catastrophic backtracking); and
 * {@link evaluateExpression} runs in the sandbox pool (sandbox/pool.ts), whose
 * threads have a hard deadline and a memory cap that also stop built-ins.
 * Compiled expressions are kept in a small LRU cache.
 */

export interface ExpressionLimits {
  /** Wall-clock limit per evaluation, ms. */
  timeoutMs: number;
  /** Maximum evaluation depth (nested function calls / recursion). */
  maxDepth: number;
  /** Maximum length of any sequence built during evaluation. */
  maxSequence: number;
}

export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = Object.freeze({
  timeoutMs: 1_000,
  // JSONata counts about three levels per user-function call: ≈ 330 nested calls.
  maxDepth: 1_000,
  maxSequence: 100_000,
});

/** Longest string a built-in may build in one call (`$pad`). */
const MAX_BUILT_STRING = 4 * 1024 * 1024;

const HARD_DEADLINE_GRACE_MS = 500;

/** Longest accepted expression text. */
export const MAX_EXPRESSION_LENGTH = 10_000;

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  get size(): number {
    return this.map.size;
  }
  clear(): void {
    this.map.clear();
  }
}

const CACHE_SIZE = 1_000;
const cache = new Lru<jsonata.Expression>(CACHE_SIZE);

function limitsKey(l: ExpressionLimits): string {
  return `${l.timeoutMs}:${l.maxDepth}:${l.maxSequence}`;
}

/**
 * Compiles (parses) an expression, throwing {@link ExpressionError} on syntax errors.
 * Used at apply time to surface errors early, and by {@link evaluateExpression}.
 */
export function compileExpression(expr: string, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS): jsonata.Expression {
  if (typeof expr !== 'string') throw new ExpressionError('Expression must be a string', { code: 'E_TYPE' });
  if (expr.trim() === '') throw new ExpressionError('Expression is empty', { code: 'E_EMPTY' });
  if (expr.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`Expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, { code: 'E_LENGTH' });
  }
  const key = `${limitsKey(limits)}\u0000${expr}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expr, {
      timeout: limits.timeoutMs,
      stack: limits.maxDepth,
      sequence: limits.maxSequence,
      RegexEngine: RE2 as unknown as RegExpConstructor,
    } as jsonata.JsonataOptions);
  } catch (err) {
    throw toExpressionError(err);
  }
  compiled.registerFunction('pad', boundedPad, '<s-ns?:s>');
  cache.set(key, compiled);
  return compiled;
}

// The built-in `$pad`, reached through an expression that does not override it.
const builtinPad = jsonata('$pad($s, $w, $c)');

/**
 * `$pad` allocates its whole width at once, inside V8's C++ code where a thread's heap
 * cap cannot stop it in time (the process would abort): refuse huge widths up front.
 */
async function boundedPad(s: string | undefined, width: number, char?: string): Promise<unknown> {
  const cost = Math.abs(Math.trunc(width)) * Math.max(1, char?.length ?? 1);
  if (cost > MAX_BUILT_STRING) {
    throw new ExpressionError(`$pad would build a string longer than ${MAX_BUILT_STRING} characters`, { code: 'expression_too_large' });
  }
  return builtinPad.evaluate(null, { s, w: width, c: char });
}

/** Checks an expression's syntax; returns the error message or null. */
export function checkExpressionSyntax(expr: string): string | null {
  try {
    compileExpression(expr);
    return null;
  } catch (err) {
    return toExpressionError(err).message;
  }
}

/**
 * Converts a JSONata result to plain JSON data: JSONata sequences become ordinary
 * arrays, `undefined` becomes null (in arrays) or is dropped (in objects), and the
 * result shares no objects with the context (so callers can mutate it safely).
 */
function toPlain(value: unknown, depth = 0): unknown {
  // Bounded, so this recursion (and the copy back from the sandbox thread) cannot overflow.
  if (depth > SANDBOX_LIMITS.maxResultDepth) {
    throw new ExpressionError(`Expression result is nested deeper than ${SANDBOX_LIMITS.maxResultDepth} levels`, {
      code: 'expression_too_large',
    });
  }
  if (value === undefined || value === null) return null;
  if (typeof value === 'function') {
    throw new ExpressionError('Expression result is a function, not a value', { code: 'E_FUNCTION' });
  }
  if (typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return null;
    if (typeof value === 'bigint') return Number(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => toPlain(v, depth + 1));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (typeof v === 'function') {
      // JSONata lambdas stored in objects: not data.
      throw new ExpressionError('Expression result contains a function, not a value', { code: 'E_FUNCTION' });
    }
    Object.defineProperty(out, k, { value: toPlain(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Evaluates a JSONata expression over `{input, steps, secrets}` in this thread. Only the
 * sandbox's worker threads call it; everyone else uses {@link evaluateExpression}.
 */
export async function evaluateInThisThread(
  expr: string,
  ctx: ExpressionContext,
  limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS,
): Promise<unknown> {
  const compiled = compileExpression(expr, limits);
  const doc = { input: ctx.input ?? null, steps: ctx.steps ?? {}, secrets: ctx.secrets ?? {} };
  let result: unknown;
  try {
    result = await compiled.evaluate(doc, { input: doc.input, steps: doc.steps, secrets: doc.secrets });
  } catch (err) {
    throw toExpressionError(err);
  }
  return toPlain(result);
}

/**
 * Evaluates a JSONata expression over `{input, steps, secrets}` in the sandbox pool.
 * Resolves to plain JSON data (`undefined` → null); rejects with {@link ExpressionError}
 * (code `expression_timeout` / `expression_too_large` when a hard bound stopped it), or with
 * SandboxBusyError when the sandbox had no room for it in time.
 */
export async function evaluateExpression(
  expr: string,
  ctx: ExpressionContext,
  limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS,
): Promise<unknown> {
  // Syntax errors are found here, without a round trip to a thread.
  compileExpression(expr, limits);
  const doc = { input: ctx.input ?? null, steps: ctx.steps ?? {}, secrets: ctx.secrets ?? {} };
  // JSONata's own check (between its steps) usually ends a slow evaluation first; the
  // thread's hard deadline, a little later, stops what that check cannot (one long built-in).
  return runSandboxed({ kind: 'evaluate', expr, ctx: doc, limits }, limits.timeoutMs + HARD_DEADLINE_GRACE_MS, ctx.workspaceId ?? '');
}

/** For tests and diagnostics. */
export function expressionCacheSize(): number {
  return cache.size;
}

export function clearExpressionCache(): void {
  cache.clear();
}
