import { AppError } from '../errors';

/** JSON deeper than this is refused at every door (API.md §9): the recursive walks behind it stay bounded. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` levels (a scalar is depth 0, `{}` depth 1).
 * Iterative with an explicit stack, so no input can overflow the call stack here.
 */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * 422 `validation_failed` for JSON nested deeper than MAX_JSON_DEPTH. `envelope` counts the
 * levels a body wraps around the input (`{"input": …}` is 1), so the input itself may use all 64.
 */
export function assertJsonDepth(value: unknown, path = 'body', envelope = 0): void {
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH + envelope)) {
    throw new AppError('validation_failed', `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`, {
      errors: [{ path, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
}
