import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { LaunchRequest, RunLauncher } from '@svc/domain';
import { waitForSettleUpdate } from '../shared/messages';
import { runWorkflowInput } from '../shared/runTypes';
import type { RunWorkflowInput } from '../shared/runTypes';
import { SA_RUN_ID, SA_RUN_STATUS, SA_WORKFLOW_ID, SA_WORKSPACE_ID } from '../shared/searchAttributes';
import type { runWorkflow } from '../workflows/runWorkflow';

/** How a run's workflow is started: by the gateway, and by the benchmark's SDK baseline. */
export function runStartOptions(req: LaunchRequest, taskQueue: string) {
  return {
    // A second start of the same run can only ever attach to the first.
    workflowId: req.temporalWorkflowId,
    taskQueue,
    // Ids and the pinned definition only: the run's data stays in PostgreSQL.
    args: [runWorkflowInput(req)] as [RunWorkflowInput],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    // How the run reads in the Temporal UI without svc's code (API.md §12).
    staticSummary: `${req.definition.slug} v${req.workflowVersion} · ${req.workspaceId} · ${req.runId}`,
    typedSearchAttributes: [
      { key: SA_RUN_ID, value: req.runId },
      { key: SA_WORKSPACE_ID, value: req.workspaceId },
      { key: SA_WORKFLOW_ID, value: req.workflowId },
      { key: SA_RUN_STATUS, value: 'queued' as const },
    ],
  };
}

export function createRunLauncher(deps: { client: Client; taskQueue: string }): RunLauncher {
  const { client, taskQueue } = deps;
  return {
    async start(req: LaunchRequest) {
      try {
        await client.workflow.start<typeof runWorkflow>('runWorkflow', runStartOptions(req, taskQueue));
      } catch (err) {
        // Already started (and maybe finished): exactly what a repeated start should find.
        if (err instanceof WorkflowExecutionAlreadyStartedError) return;
        throw err;
      }
    },

    async waitForSettle(runId, timeoutMs, signal) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      const onAbort = () => abort.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await client.withAbortSignal(abort.signal, () =>
          client.workflow.getHandle(runId).executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs }] }),
        );
      } catch {
        // Deadline reached, caller gone, or the workflow already closed (an update cannot
        // reach a closed workflow): in every case the caller reads the run as it is now.
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
