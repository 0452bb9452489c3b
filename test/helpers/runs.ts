import { SETTLED_STATUSES } from '@svc/temporal';
import { waitFor } from './fixtures';
import type { TestStack } from './stack';
import type { Tenant } from './tenants';

/**
 * Applies `definition` in the tenant's workspace and starts one run of it with `wait: true`,
 * then reads the run until it has settled (SETTLED_STATUSES, what `wait: true` waits for):
 * `wait` may give up under a loaded test machine. The reads stop in time for a clear failure
 * within Jest's 120 s (25 s of `wait`, then 90 s).
 */
export async function runToSettle(stack: TestStack, tenant: Tenant, definition: unknown, input: Record<string, unknown> = {}) {
  const { key } = tenant;
  const wf = await stack.apply(tenant.workspaceId, definition);
  const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input, wait: true } });
  expect(started.status).toBe(201);
  if (SETTLED_STATUSES.includes(started.body.status)) return started.body;
  const read = await waitFor(
    () => stack.api('GET', `/api/v1/runs/${started.body.id}`, { key }),
    (r) => r.status !== 200 || SETTLED_STATUSES.includes(r.body.status),
    90_000,
  );
  expect(read.status).toBe(200);
  return read.body;
}

/**
 * The Temporal execution behind `workflowId` once it has closed. `wait: true` answers at the
 * commit that settles the run, a moment before its workflow task completes in Temporal, so what
 * Temporal shows of a settled run (its history, status, search attributes) is read after this.
 */
export async function closedExecution(stack: TestStack, workflowId: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId);
  // A failed or cancelled execution has closed too.
  await handle.result().catch(() => undefined);
  return handle;
}
