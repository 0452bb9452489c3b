import { existsSync } from 'node:fs';
import path from 'node:path';
import { ExpressionError } from '../expressionError';
import { SANDBOX_LIMITS } from './limits';
import { ThreadPool } from './threads';
import type { SandboxResult, SandboxTask } from './tasks';

export { SANDBOX_LIMITS };

/**
 * The expression sandbox: a small pool of worker threads, each with a V8 heap cap, that
 * runs JSONata evaluations and input-schema validations. JSONata's own time check only
 * runs between its steps, so a single built-in call (`$pad('', 5e8)`, a huge `$join`)
 * could stall or exhaust a process; here a thread that passes its deadline is
 * terminated and one that passes its heap cap dies alone, and the process keeps serving.
 */

// Tests run the TypeScript sources, but a thread needs JavaScript: use the built copy.
function workerFile(): string {
  const here = path.join(__dirname, 'worker.js');
  if (existsSync(here)) return here;
  return path.resolve(__dirname, '../../../dist/expressions/sandbox/worker.js');
}

let pool: ThreadPool | undefined;
let threads: number = SANDBOX_LIMITS.threads;
/** Tasks this process's sandbox answered, and those it refused as capacity, since it started. */
const stats = { ran: 0, refused: 0 };

/**
 * Sets how many threads this process's sandbox may start (they start on first use). Each is an
 * isolate of its own, ~15 MB idle and ~30 MB once busy, so a process that only validates input
 * (the gateway) needs fewer than one that evaluates every step (the worker). Call before first use.
 */
export function configureSandbox(opts: { threads: number }): void {
  if (pool) throw new Error('configureSandbox must be called before the sandbox is first used');
  threads = opts.threads;
}

function getPool(): ThreadPool {
  pool ??= new ThreadPool({
    filename: workerFile(),
    size: threads,
    maxQueueWaitMs: SANDBOX_LIMITS.maxQueueWaitMs,
    maxQueuedPerTenant: SANDBOX_LIMITS.maxQueuedPerTenant,
    resourceLimits: {
      maxOldGenerationSizeMb: SANDBOX_LIMITS.heapMb,
      maxYoungGenerationSizeMb: SANDBOX_LIMITS.youngGenerationMb,
      stackSizeMb: 4,
    },
  });
  return pool;
}

function outOfMemory(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/**
 * The sandbox had no room for a task in time (its tenant's line full, or no thread free): a
 * capacity answer, never the task's fault, so callers retry (the worker) or answer 503 (the gateway).
 */
export class SandboxBusyError extends Error {
  constructor() {
    super('The expression sandbox is busy; try again shortly');
    this.name = 'SandboxBusyError';
  }
}

/**
 * Runs a task in a sandbox thread, in `tenant`'s line (its workspace; lines are served in turn).
 * `deadlineMs` counts from the moment a thread takes the task. Resolves to the task's value;
 * rejects with {@link SandboxBusyError}, or ExpressionError: `expression_timeout`,
 * `expression_too_large`, or the task's own failure as a {@link SandboxTaskError}.
 */
export async function runSandboxed(task: SandboxTask, deadlineMs: number, tenant: string): Promise<unknown> {
  const outcome = await getPool().run(tenant, task, deadlineMs);
  const refused = !outcome.ok && (outcome.reason === 'queue' || outcome.reason === 'busy');
  stats[refused ? 'refused' : 'ran']++;
  if (refused) throw new SandboxBusyError();
  if (!outcome.ok) {
    if (outcome.reason === 'deadline') {
      throw new ExpressionError(`Expression took too long to evaluate (hard limit ${deadlineMs} ms)`, { code: 'expression_timeout' });
    }
    if (outcome.reason === 'unsendable') {
      throw new ExpressionError("The expression's data is nested too deeply to evaluate", { code: 'expression_too_large' });
    }
    if (outOfMemory(outcome.error)) {
      throw new ExpressionError(`Expression used too much memory (limit ${SANDBOX_LIMITS.heapMb} MB)`, { code: 'expression_too_large' });
    }
    throw new ExpressionError('Expression failed in the sandbox', { code: 'expression_error' });
  }
  const result = outcome.value as SandboxResult;
  if (result.ok) return result.value;
  throw new SandboxTaskError(result.error);
}

/** A task's own failure (bad expression, invalid input), as the thread reported it. */
export class SandboxTaskError extends ExpressionError {
  readonly errors?: { path: string; message: string }[];
  constructor(failure: { code: string; message: string; position?: number; errors?: { path: string; message: string }[] }) {
    super(failure.message, { code: failure.code, position: failure.position });
    this.errors = failure.errors;
  }
}

/** This process's sandbox tasks so far: answered (whatever their outcome), and refused as capacity. */
export function sandboxStats(): { ran: number; refused: number } {
  return { ...stats };
}

/** Stops the threads (tests, shutdown). */
export async function closeSandbox(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}
