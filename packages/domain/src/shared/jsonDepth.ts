import { AppError } from '../errors';

/** JSON deeper than this is refused at every door: the recursive walks behind it stay bounded. */
export const MAX_JSON_DEPTH = 64;

/** What one walk over a parsed JSON value found. */
export interface JsonScan {
  /** Nested deeper than the walk's bound (a scalar is depth 0, `{}` depth 1); the walk stopped there. */
  tooDeep: boolean;
  /** Some string, value or object key, holds U+0000 (which PostgreSQL cannot store). */
  hasNul: boolean;
}

/**
 * One iterative walk (an explicit stack, so no depth overflows the call stack; no allocation per
 * node) that finds whether `value` nests deeper than `maxDepth` and whether a string holds U+0000.
 */
export function scanJson(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonScan {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let hasNul = false;
  // Only strings and containers are pushed: numbers, booleans and null need no look.
  const visit = (child: unknown, depth: number): void => {
    if (typeof child === 'string' || (child !== null && typeof child === 'object')) {
      values.push(child);
      depths.push(depth);
    }
  };
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (typeof v === 'string') {
      if (!hasNul && v.includes('\u0000')) hasNul = true;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) return { tooDeep: true, hasNul };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], depth + 1);
      continue;
    }
    // Parsed JSON and expression results are plain objects: every enumerable key is their own.
    for (const key in v as object) {
      if (!hasNul && key.includes('\u0000')) hasNul = true;
      visit((v as Record<string, unknown>)[key], depth + 1);
    }
  }
  return { tooDeep: false, hasNul };
}

/** Whether a parsed JSON value nests deeper than `max` levels (a scalar is depth 0, `{}` depth 1). */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  return scanJson(value, max).tooDeep;
}

/** The 422 for JSON nested deeper than MAX_JSON_DEPTH, at `path`. */
export function tooDeepError(path: string): AppError {
  return new AppError('validation_failed', `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`, {
    errors: [{ path, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }],
  });
}

/**
 * 422 `validation_failed` for JSON nested deeper than MAX_JSON_DEPTH. `envelope` counts the
 * levels a body wraps around the input (`{"input": …}` is 1), so the input itself may use all 64.
 */
export function assertJsonDepth(value: unknown, path = 'body', envelope = 0): void {
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH + envelope)) throw tooDeepError(path);
}
