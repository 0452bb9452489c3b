import jsonata from 'jsonata';
import type { ExpressionContext } from '../definitions/types';

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
 * options). Compiled expressions are kept in a small LRU cache.
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

/** Longest accepted expression text. */
export const MAX_EXPRESSION_LENGTH = 10_000;

/**
 * An expression failed to compile or evaluate. The message is JSONata's, plus where;
 * there is no JavaScript stack in it (or in `stack`).
 */
export class ExpressionError extends Error {
  /** JSONata error code, e.g. `S0201` (syntax) or `T2001` (type); `E_LIMIT` etc. for ours. */
  readonly code: string;
  /** 0-based character offset into the expression, when known. */
  readonly position?: number;
  readonly token?: string;

  constructor(message: string, opts: { code?: string; position?: number; token?: string } = {}) {
    super(message);
    this.name = 'ExpressionError';
    this.code = opts.code ?? 'E_EXPRESSION';
    if (typeof opts.position === 'number') this.position = opts.position;
    if (opts.token !== undefined) this.token = opts.token;
    this.stack = `${this.name}: ${message}`;
  }

  toJSON(): { code: string; message: string; position?: number } {
    return { code: this.code, message: this.message, position: this.position };
  }
}

interface JsonataErrorLike {
  code?: unknown;
  message?: unknown;
  position?: unknown;
  token?: unknown;
}

/** Turns whatever JSONata threw into an {@link ExpressionError}. */
export function toExpressionError(err: unknown): ExpressionError {
  if (err instanceof ExpressionError) return err;
  const e = (err && typeof err === 'object' ? err : {}) as JsonataErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const position = typeof e.position === 'number' ? e.position : undefined;
  const token = typeof e.token === 'string' ? e.token : undefined;
  let message = typeof e.message === 'string' && e.message ? e.message : String(err);
  // JSONata messages never contain stacks, but a thrown JS Error might: keep the first line.
  message = message.split('\n')[0];
  if (code === 'D1012') message = 'Expression took too long to evaluate (time limit exceeded)';
  if (code === 'D1011') message = 'Expression recursed too deeply (depth limit exceeded)';
  const where = position !== undefined && position > 0 ? ` (at position ${position})` : '';
  return new ExpressionError(`${message}${where}`, { code, position, token });
}

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
    compiled = jsonata(expr, { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence });
  } catch (err) {
    throw toExpressionError(err);
  }
  cache.set(key, compiled);
  return compiled;
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
  if (depth > 200) throw new ExpressionError('Expression result is nested too deeply', { code: 'E_DEPTH' });
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
 * Evaluates a JSONata expression over `{input, steps, secrets}`. Resolves to plain JSON
 * data (`undefined` → null); rejects with {@link ExpressionError}.
 */
export async function evaluateExpression(
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

/** For tests and diagnostics. */
export function expressionCacheSize(): number {
  return cache.size;
}

export function clearExpressionCache(): void {
  cache.clear();
}
