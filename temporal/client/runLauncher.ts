import type { Client } from '@temporalio/client';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { InternalWorkflowStartOptionsSymbol } from '@temporalio/client/lib/internal';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { LaunchRequest, RunLauncher, RunRef, StartOutcome, WaitOptions } from '@svc/domain';
import { waitForSettleUpdate } from '../shared/messages';
import { RUN_WORKFLOW_TYPE, runWorkflowInput } from '../shared/runTypes';
import type { RunWorkflowInput } from '../shared/runTypes';
import { SA_RUN_ID, SA_RUN_STATUS, SA_WORKFLOW_ID, SA_WORKSPACE_ID } from '../shared/searchAttributes';
import type { runWorkflow } from '../workflows/runWorkflow';
import { withAbortSignal, withDeadline } from './connection';
import { createSettleWaits } from './settleWaits';
import { isTaskFailure } from './updateRetry';

/**
 * How a run's workflow is started: by the gateway, and by the benchmark's SDK baseline.
 *
 * Never one run twice, however often its start is asserted (a replay re-asserts the start of a
 * still-`queued` run, in case the first request died between its commit and its start):
 * - The request id is the run id. Temporal answers a start whose request id matches the CURRENT
 *   execution of the workflow id with that execution, running or closed, instead of starting
 *   another: repeated starts of one run are deduplicated atomically by the server.
 * - Otherwise an open execution under the id FAILs the start (never joined: it could be another
 *   run's, see `start`), and a closed one may be followed by a new execution only for keyed ids
 *   (ALLOW_DUPLICATE: after the 24 h window the same key starts a NEW run under the same id).
 *   A run id is never reused, so for it any earlier execution is this run's: REJECT_DUPLICATE.
 * - What the request id cannot see (this run's execution after it continued-as-new) the
 *   SvcRunId search attribute shows: `start` checks it on every conflict.
 */
export function runStartOptions(req: LaunchRequest, taskQueue: string) {
  const keyed = req.temporalWorkflowId !== req.runId;
  return {
    workflowId: req.temporalWorkflowId,
    taskQueue,
    // Ids and the pinned definition only: the run's data stays in PostgreSQL.
    args: [runWorkflowInput(req)] as [RunWorkflowInput],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    workflowIdReusePolicy: keyed ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
    // How the run reads in the Temporal UI without svc's code.
    staticSummary: `${req.definition.slug} v${req.workflowVersion} · ${req.workspaceId} · ${req.runId}`,
    typedSearchAttributes: [
      { key: SA_RUN_ID, value: req.runId },
      { key: SA_WORKSPACE_ID, value: req.workspaceId },
      { key: SA_WORKFLOW_ID, value: req.workflowId },
      { key: SA_RUN_STATUS, value: 'queued' as const },
    ],
    // The SDK's own (internal) option for the start request id, used by its Nexus helpers; a
    // test (runWorkflowId: never runs the run twice) fails should it stop working.
    [InternalWorkflowStartOptionsSymbol]: { requestId: req.runId },
  };
}

/**
 * Runs `fn` (a wait through Temporal) with a signal that aborts at the wait's deadline or when its
 * caller goes away. Should `wait.settled` resolve first, the run has settled (so it started): the
 * call is aborted, its failure of no interest, and this returns at once.
 */
async function withinWait(wait: WaitOptions, fn: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), wait.timeoutMs);
  const onAbort = () => abort.abort();
  wait.signal?.addEventListener('abort', onAbort, { once: true });
  let noticed = false;
  const notice = wait.settled?.then(() => {
    noticed = true;
    abort.abort();
  });
  try {
    const call = fn(abort.signal);
    await (notice ? Promise.race([call, notice]) : call);
  } catch (err) {
    if (!noticed) throw err;
  } finally {
    clearTimeout(timer);
    wait.signal?.removeEventListener('abort', onAbort);
  }
}

export function createRunLauncher(deps: { client: Client; taskQueue: string }): RunLauncher {
  const { client, taskQueue } = deps;

  /** Whose execution holds the id after a conflict: this run's (`started`), or another open run's. */
  async function ownerOfConflict(req: LaunchRequest): Promise<StartOutcome | 'closed'> {
    // A run id is never another run's workflow id.
    if (req.temporalWorkflowId === req.runId) return 'started';
    const desc = await withDeadline(client, () => client.workflow.getHandle(req.temporalWorkflowId).describe());
    if (desc.typedSearchAttributes.get(SA_RUN_ID) === req.runId) return 'started';
    return desc.status.name === 'RUNNING' ? 'id_taken' : 'closed';
  }

  async function startOnly(req: LaunchRequest): Promise<StartOutcome> {
    // Twice at most: another run's execution may close between the conflict and the look.
    for (let attempt = 0; ; attempt++) {
      try {
        await withDeadline(client, () => client.workflow.start<typeof runWorkflow>(RUN_WORKFLOW_TYPE, runStartOptions(req, taskQueue)));
        return 'started';
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        const owner = await ownerOfConflict(req);
        if (owner !== 'closed' || attempt > 0) return owner === 'closed' ? 'id_taken' : owner;
      }
    }
  }

  const waits = createSettleWaits(client);
  const waitForSettle = (ref: RunRef, wait: WaitOptions): Promise<void> => waits.waitForSettle(ref.temporalWorkflowId, wait);

  return {
    async start(req, wait) {
      if (!wait) return startOnly(req);
      // One call starts the workflow and sends the wait (update-with-start).
      const op = new WithStartWorkflowOperation<typeof runWorkflow>(RUN_WORKFLOW_TYPE, runStartOptions(req, taskQueue));
      const started = op.workflowHandle().then(
        () => true,
        () => false,
      );
      try {
        await withinWait(wait, (signal) =>
          withAbortSignal(client, signal, () =>
            client.workflow.executeUpdateWithStart(waitForSettleUpdate, {
              args: [{ timeoutMs: wait.timeoutMs }],
              startWorkflowOperation: op,
            }),
          ),
        );
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          const outcome = await startOnly(req);
          // The run is started: how its wait ends (even refused) only changes what the caller reads.
          if (outcome === 'started') await waitForSettle(req, wait).catch(() => undefined);
          return outcome;
        }
        if (await started) {
          // The workflow task that held the wait failed (and was retried): wait again, plainly.
          if (isTaskFailure(err)) await waitForSettle(req, wait);
          return 'started';
        }
        // The caller left (or the wait ended) before Temporal confirmed the start: make sure of
        // it, so a client that disconnects never leaves its run unstarted.
        return startOnly(req);
      }
    },

    waitForSettle,
  };
}
