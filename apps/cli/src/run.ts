import type { CliContext } from './context';

/**
 * Runs one command with a context, prints its result, and sets the exit code: `exitCode` of the
 * result when given (e.g. 1 for a run that failed), else 0; 1 on an error.
 */
export type Run = <T>(
  action: (ctx: CliContext) => Promise<T>,
  human?: (value: T) => string,
  exitCode?: (value: T) => number,
) => Promise<void>;
