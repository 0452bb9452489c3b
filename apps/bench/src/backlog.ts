import type { Client } from '@temporalio/client';
import type { DbHandle } from '@svc/db';

/** Runs of the workspace not yet in a final status. */
export async function unsettledRuns(db: DbHandle, workspaceId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM runs WHERE workspace_id = $1 AND status NOT IN ('succeeded', 'failed', 'cancelled')`,
    [workspaceId],
  );
  return Number(rows[0].n);
}

/**
 * What a measurement leaves behind: the runs it started that the worker has not finished.
 * They are given `graceMs` to finish; whatever is still open then is terminated in Temporal
 * (the workflows found by the SvcWorkspaceId search attribute: runs and their webhook
 * deliveries), so the next measurement starts on an idle system. Each scenario has a workspace of
 * its own, so nothing else is touched. Returns how many runs finished and how many were cut.
 */
export async function clearBacklog(
  db: DbHandle,
  client: Client,
  workspaceId: string,
  graceMs: number,
  check?: () => void,
): Promise<{ finished: number; terminated: number; waitedMs: number }> {
  const started = Date.now();
  const before = await unsettledRuns(db, workspaceId);
  let left = before;
  while (left > 0 && Date.now() - started < graceMs) {
    check?.();
    await new Promise((r) => setTimeout(r, 250));
    left = await unsettledRuns(db, workspaceId);
  }
  const waitedMs = Date.now() - started;
  let terminated = 0;
  if (left > 0) {
    const ids: string[] = [];
    for await (const wf of client.workflow.list({ query: `SvcWorkspaceId = "${workspaceId}" AND ExecutionStatus = "Running"` })) {
      ids.push(wf.workflowId);
    }
    const next = () => ids.pop();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let id = next(); id; id = next()) {
          try {
            await client.workflow.getHandle(id).terminate('bench: backlog of a finished measurement');
            if (id.startsWith('run_')) terminated++;
          } catch {
            /* finished meanwhile */
          }
        }
      }),
    );
  }
  return { finished: before - left, terminated, waitedMs };
}
