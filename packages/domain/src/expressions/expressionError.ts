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

/** The step error code for an expression failure: the hard bounds get codes of their own. */
export function expressionErrorCode(err: unknown): 'expression_timeout' | 'expression_too_large' | 'expression_error' {
  const code = err instanceof ExpressionError ? err.code : undefined;
  // D1012: JSONata's own time check; D2014: its sequence limit (e.g. a huge $pad).
  if (code === 'expression_timeout' || code === 'D1012') return 'expression_timeout';
  if (code === 'expression_too_large' || code === 'D2014') return 'expression_too_large';
  return 'expression_error';
}
