import { randomBytes } from 'node:crypto';
import type { DbHandle } from '@svc/db';
import { applyWorkflow, createApiKey, createWorkspace, SCOPES, setWorkspacePlan, validateDefinition } from '@svc/domain';
import { createSecretBox } from '@svc/signing';

/**
 * What the bench measures with: a one-step `transform` workflow (the cheapest real run), in a
 * workspace whose limits do not throttle the bench. The limits are the operator's own override,
 * as `svc workspace set-plan WS enterprise --rate-limit N --concurrency N` sets them (API.md §8:
 * enterprise figures are custom per workspace): no bypass, every request is still counted.
 */
export const BENCH_WORKFLOW = {
  name: 'Bench greet',
  slug: 'bench-greet',
  description: 'One transform step',
  input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
  output: 'steps.shape.output',
};

export const BENCH_INPUT = { name: 'bench' };

/** Requests per minute per key: far above anything two cores can send (so never the limit). */
export const BENCH_RATE_LIMIT_PER_MIN = 10_000_000;
/** Concurrent runs: above any backlog the bench builds, so runs never wait for a slot. */
export const BENCH_CONCURRENCY = 100_000;

export interface Tenant {
  workspaceId: string;
  key: string;
  workflowId: string;
}

export async function createTenant(db: DbHandle, encryptionKeyHex: string, baseUrl: string, label: string): Promise<Tenant> {
  const box = createSecretBox(Buffer.from(encryptionKeyHex, 'hex'));
  const ws = await createWorkspace(db.prisma, { name: `bench-${label}-${randomBytes(3).toString('hex')}`, plan: 'enterprise' });
  await setWorkspacePlan(db.prisma, ws.id, {
    plan: 'enterprise',
    rateLimitPerMin: BENCH_RATE_LIMIT_PER_MIN,
    concurrency: BENCH_CONCURRENCY,
  });
  const key = await createApiKey(db.prisma, { workspaceId: ws.id, name: 'bench', scopes: [...SCOPES] });
  const wf = await applyWorkflow(db.prisma, box, { workspaceId: ws.id, definition: validateDefinition(BENCH_WORKFLOW), baseUrl });
  return { workspaceId: ws.id, key: key.key, workflowId: wf.workflow.id };
}
