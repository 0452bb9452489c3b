import type { Client } from '@temporalio/client';
import type { Db } from '@svc/db';
import { createRunStore, holdersWhereRunsWait, releaseSlots, sweepExpired } from '@svc/domain';
import type { SlotGrant, SweepResult } from '@svc/domain';
import { RUN_WORKFLOW_TYPE } from '../shared/runTypes';
import { SA_RUN_ID } from '../shared/searchAttributes';
import type { AfterCommitActions } from './afterCommit';
import type { SvcMetrics } from './metrics';

const DESCRIBE_BATCH = 20;
/** How far back the reconciler looks for runs whose workflow ended from outside. */
const ENDED_WINDOW_MS = 15 * 60_000;
const UNFINISHED = ['queued', 'running', 'waiting_for_review'];

export interface ReconcileActivityDeps {
  prisma: Db;
  temporal: { client: Client };
  /** Runs settled here count in svc_runs_settled_total like any other. */
  metrics: SvcMetrics;
}

/** What the reconciler Schedule's workflow does (workflows/reconciler.ts). */
export function createReconcileActivities(deps: ReconcileActivityDeps, after: AfterCommitActions, dispatchDelayMs: number) {
  const { client } = deps.temporal;
  const store = createRunStore(deps.prisma, { dispatchDelayMs, observer: deps.metrics });

  /** Why an execution ended without its code: the operator's termination reason, or the timeout. */
  async function endReason(workflowId: string, runId: string, status: string): Promise<string> {
    if (status !== 'TERMINATED') return `The run's Temporal workflow ended without finishing (${status.toLowerCase()})`;
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const last = history.events?.at(-1);
    const reason = last?.workflowExecutionTerminatedEventAttributes?.reason?.trim();
    return reason || 'Terminated from Temporal';
  }

  /**
   * Runs still unfinished in svc whose workflow was terminated or timed out (their search
   * attribute still says queued, running or waiting): each ends `failed` with code
   * `terminated`, its step in progress failed, its slot freed and `run.failed` sent, through
   * the same transaction as every other ending (idempotent: a second copy changes nothing).
   */
  async function settleEndedRuns(grantKey: string): Promise<number> {
    const since = new Date(Date.now() - ENDED_WINDOW_MS).toISOString();
    const query =
      `WorkflowType = '${RUN_WORKFLOW_TYPE}' AND ExecutionStatus IN ('Terminated', 'TimedOut') ` +
      `AND SvcRunStatus IN (${UNFINISHED.map((s) => `'${s}'`).join(', ')}) AND CloseTime > '${since}'`;
    let settled = 0;
    for await (const wf of client.workflow.list({ query })) {
      const runId = wf.typedSearchAttributes.get(SA_RUN_ID);
      const run = runId
        ? await deps.prisma.run.findUnique({ where: { id: runId }, select: { id: true, workspaceId: true, status: true } })
        : await deps.prisma.run.findFirst({
            where: { temporalWorkflowId: wf.workflowId, status: { in: UNFINISHED } },
            select: { id: true, workspaceId: true, status: true },
          });
      if (!run || !UNFINISHED.includes(run.status)) continue;
      const message = await endReason(wf.workflowId, wf.runId, wf.status.name);
      const inProgress = await deps.prisma.runStep.findFirst({
        where: { runId: run.id, status: { in: ['running', 'waiting_for_review'] } },
        orderBy: { position: 'asc' },
        select: { key: true },
      });
      const key = `${grantKey}:${run.id}`;
      const done = await store.finishRun({
        runId: run.id,
        workspaceId: run.workspaceId,
        status: 'failed',
        output: null,
        error: { code: 'terminated', message, step_key: inProgress?.key ?? null },
        grantKey: key,
      });
      await after.done(run.workspaceId, key, done);
      settled++;
    }
    return settled;
  }

  /** Which of these holders' workflows have closed. */
  async function closedHolders(holders: SlotGrant[]): Promise<string[]> {
    const closed: string[] = [];
    for (let i = 0; i < holders.length; i += DESCRIBE_BATCH) {
      await Promise.all(
        holders.slice(i, i + DESCRIBE_BATCH).map(async (h) => {
          try {
            const { status } = await client.workflow.getHandle(h.temporalWorkflowId).describe();
            if (status.name !== 'RUNNING') closed.push(h.runId);
          } catch (err) {
            if ((err as Error).name === 'WorkflowNotFoundError') closed.push(h.runId);
            else throw err;
          }
        }),
      );
    }
    return closed;
  }

  /** Where runs wait, slots held by runs whose workflow has closed go to the next in line. */
  async function reclaimSlots(grantKey: string): Promise<number> {
    let reclaimed = 0;
    for (const { workspaceId, holders } of await holdersWhereRunsWait(deps.prisma)) {
      const dead = await closedHolders(holders);
      if (dead.length === 0) continue;
      reclaimed += dead.length;
      const key = `${grantKey}:${workspaceId}`;
      await after.tell(workspaceId, await releaseSlots(deps.prisma, { workspaceId, runIds: dead, grantKey: key }), key);
    }
    return reclaimed;
  }

  return {
    async reconcileRuns(args: { grantKey: string }): Promise<{ settled: number; reclaimed: number; swept: SweepResult }> {
      const settled = await settleEndedRuns(args.grantKey);
      const reclaimed = await reclaimSlots(args.grantKey);
      return { settled, reclaimed, swept: await sweepExpired(deps.prisma) };
    },
  };
}
