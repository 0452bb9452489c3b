import { SETTLED_STATUSES } from '@svc/temporal';
import type { TestStack } from './stack';
import type { Tenant } from './tenants';

/**
 * Applies `definition` in the tenant's workspace and starts one run of it with `wait: true`,
 * then reads the run until it has settled (SETTLED_STATUSES, what `wait: true` waits for, API.md
 * §4): `wait` may give up under a loaded test machine.
 */
export async function runToSettle(stack: TestStack, tenant: Tenant, definition: unknown, input: Record<string, unknown> = {}) {
  const { key } = tenant;
  const wf = await stack.apply(tenant.workspaceId, definition);
  const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input, wait: true } });
  expect(started.status).toBe(201);
  let run = started.body;
  while (!SETTLED_STATUSES.includes(run.status)) {
    await new Promise((res) => setTimeout(res, 100));
    const read = await stack.api('GET', `/api/v1/runs/${run.id}`, { key });
    expect(read.status).toBe(200);
    run = read.body;
  }
  return run;
}
