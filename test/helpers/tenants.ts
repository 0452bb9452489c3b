import { randomBytes } from 'node:crypto';
import type { DbHandle } from '@svc/db';
import { applyWorkflow, createApiKey, createWorkspace, SCOPES, setWorkspacePlan, validateDefinition } from '@svc/domain';
import type { SecretBox } from '@svc/signing';

/** A workspace and a key of it, as `tenant()` makes them. */
export interface Tenant {
  workspaceId: string;
  key: string;
}

/** Workspaces, keys and workflow definitions written straight through the domain, as the CLI does. */
export function tenantFactory(db: DbHandle, box: SecretBox, baseUrl: () => string) {
  return {
    /** A workspace with a key holding every scope (or the given ones); `limits` makes it enterprise. */
    async tenant(
      opts: { plan?: string; scopes?: string[]; limits?: { rateLimitPerMin?: number; concurrency?: number } } = {},
    ): Promise<Tenant> {
      const plan = opts.limits ? 'enterprise' : (opts.plan ?? 'pro');
      const ws = await createWorkspace(db.prisma, { name: `test-${randomBytes(3).toString('hex')}`, plan });
      if (opts.limits) await setWorkspacePlan(db.prisma, ws.id, { plan, ...opts.limits });
      const key = await createApiKey(db.prisma, { workspaceId: ws.id, name: 'test', scopes: opts.scopes ?? [...SCOPES] });
      return { workspaceId: ws.id, key: key.key };
    },
    async apply(workspaceId: string, document: unknown): Promise<{ id: string; version: number }> {
      const r = await applyWorkflow(db.prisma, box, { workspaceId, definition: validateDefinition(document), baseUrl: baseUrl() });
      return { id: r.workflow.id, version: r.workflow.version };
    },
  };
}
