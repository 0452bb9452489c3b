import { randomBytes } from 'node:crypto';
import { applyWorkflow, createApiKey, createWorkspace, SCOPES, setWorkspacePlan, validateDefinition } from '@svc/domain';
import { createSecretBox } from '@svc/signing';
import type { BenchStack } from './stack';

/** The workflow most rows measure: one `transform` step, the cheapest real run. */
export const GREET_WORKFLOW = {
  name: 'Bench greet',
  slug: 'bench-greet',
  input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
  output: 'steps.shape.output',
};
export const GREET_INPUT = { name: 'bench' };

export interface Tenant {
  workspaceId: string;
  /** Its API keys (one unless asked for more). */
  keys: string[];
  workflowId: string;
}

export interface TenantOptions {
  /**
   * A plan and its own limits; by default the enterprise plan with operator-set figures far above
   * what two cores can send, so every request is counted but none throttled.
   */
  plan?: 'basic';
  keys?: number;
  workflow?: object;
}

/** A workspace of its own, so what one measurement leaves behind never queues before another's runs. */
export async function createTenant(stack: BenchStack, label: string, o: TenantOptions = {}): Promise<Tenant> {
  const { prisma } = stack.db;
  const ws = await createWorkspace(prisma, { name: `bench-${label}-${randomBytes(3).toString('hex')}`, plan: o.plan ?? 'enterprise' });
  if (!o.plan) await setWorkspacePlan(prisma, ws.id, { plan: 'enterprise', rateLimitPerMin: 10_000_000, concurrency: 100_000 });
  const keys: string[] = [];
  for (let i = 0; i < (o.keys ?? 1); i++)
    keys.push((await createApiKey(prisma, { workspaceId: ws.id, name: `key-${i}`, scopes: [...SCOPES] })).key);
  const box = createSecretBox(Buffer.from(stack.encryptionKey, 'hex'));
  const wf = await applyWorkflow(prisma, box, {
    workspaceId: ws.id,
    definition: validateDefinition(o.workflow ?? GREET_WORKFLOW),
    baseUrl: stack.apiUrl,
  });
  return { workspaceId: ws.id, keys, workflowId: wf.workflow.id };
}
