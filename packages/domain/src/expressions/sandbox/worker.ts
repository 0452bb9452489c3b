import { parentPort, type MessagePort } from 'node:worker_threads';
import { AppError } from '../../errors';
import { compileInputValidator } from '../../definitions/inputSchema';
import { evaluateInThisThread } from '../evaluate';
import { exceedsChars } from '../../shared/jsonSize';
import { toExpressionError } from '../expressionError';
import { SANDBOX_LIMITS } from './limits';
import type { SandboxResult, SandboxTask } from './tasks';

/** The body of a sandbox thread: says it is ready, then answers one task per message. */
const port = parentPort as MessagePort;
port.on('message', (task: SandboxTask) => {
  void runTask(task).then((result) => port.postMessage(result));
});
port.postMessage('ready');

async function runTask(task: SandboxTask): Promise<SandboxResult> {
  if (task.kind === 'evaluate') {
    try {
      const value = await evaluateInThisThread(task.expr, task.ctx as never, task.limits);
      // Copying a huge result into the caller's thread would block it: refuse it here.
      if (exceedsChars(value, SANDBOX_LIMITS.maxResultChars)) {
        const message = `Expression result is larger than ${SANDBOX_LIMITS.maxResultChars} characters`;
        return { ok: false, error: { code: 'expression_too_large', message } };
      }
      return { ok: true, value };
    } catch (err) {
      const e = toExpressionError(err);
      return { ok: false, error: { code: e.code, message: e.message, position: e.position } };
    }
  }
  try {
    compileInputValidator(task.schema)(task.input);
    return { ok: true, value: null };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message, errors: err.errors } };
    throw err;
  }
}
