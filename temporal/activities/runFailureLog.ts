import { log } from '@temporalio/activity';
import type { Db } from '@svc/db';

/**
 * One warning line per failed run, once its ending is committed: its ids and error code (the
 * code only: a message can quote a receiver's answer). Read back, since the code may have been
 * decided in the ending's own transaction (an output that could not be worked out).
 */
export async function logRunFailed(prisma: Db, runId: string): Promise<void> {
  const run = await prisma.run.findUnique({
    where: { id: runId },
    select: { workspaceId: true, workflowId: true, temporalWorkflowId: true, error: true },
  });
  const code = (run?.error as { code?: unknown } | null)?.code;
  log.warn('run failed', {
    runId,
    workspaceId: run?.workspaceId,
    svcWorkflowId: run?.workflowId,
    temporalWorkflowId: run?.temporalWorkflowId,
    code: typeof code === 'string' ? code : 'unknown',
  });
}
