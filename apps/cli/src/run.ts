import type { CliContext } from './context';

/** Runs one command with a context, prints its result, and sets the exit code. */
export type Run = <T>(action: (ctx: CliContext) => Promise<T>, human?: (value: T) => string) => Promise<void>;
