import type { Db } from '@svc/db';
import { randomToken } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import type { WorkflowDefinition } from '../definitions';
import { AppError } from '../errors';
import { canonicalJson } from '../shared/canonicalJson';
import { newId } from '../ids';
import { decodeCursor, toPage } from '../shared/pagination';
import { previousInForce } from '../shared/secretRotation';
import type { Page } from '../shared/pagination';
import { iso } from '../shared/time';
import { sealedContext } from '../secrets/contexts';
import { limitExceeded, workspaceCaps } from '../workspaces/caps';

export interface WorkflowView {
  id: string;
  name: string;
  slug: string;
  description: string;
  version: number;
  input_schema: Record<string, unknown> | null;
  steps: { key: string; name: string; type: string }[];
  trigger: { url: string; auth: { secret: boolean; signature: boolean } };
  created_at: string | null;
  updated_at: string | null;
}

type WorkflowRow = Awaited<ReturnType<Db['workflow']['findUniqueOrThrow']>>;

export function toWorkflowView(w: WorkflowRow, def: WorkflowDefinition, baseUrl: string): WorkflowView {
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    description: w.description,
    version: w.version,
    input_schema: def.input_schema ?? null,
    steps: def.steps.map((s) => ({ key: s.key, name: s.name, type: s.type })),
    trigger: { url: `${baseUrl}/hooks/${w.triggerId}`, auth: { secret: def.trigger.secret, signature: def.trigger.signature } },
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

/** A trigger's shared secret (`x-svc-secret`) and signing secret (`x-svc-signature`): 256 random bits each. */
export function newTriggerSecrets(): { secret: string; signingSecret: string } {
  return { secret: randomToken('tsec_', 32), signingSecret: randomToken('tsig_', 32) };
}

/** Every review step names at most the workspace's figure of assignees (422 limit_exceeded, at each step's path). */
function checkAssignees(def: WorkflowDefinition, figure: number): void {
  const over = def.steps.flatMap((step, i) =>
    step.type === 'review' && step.assignees.length > figure
      ? [{ path: `steps[${i}].assignees`, message: `at most ${figure} assignees (${step.assignees.length} given)` }]
      : [],
  );
  if (over.length) throw limitExceeded('review_assignees', figure, over);
}

export interface ApplyResult {
  workflow: WorkflowView;
  /** created: new workflow; updated: new version; unchanged: identical definition, no bump. */
  change: 'created' | 'updated' | 'unchanged';
}

export interface ApplyArgs {
  workspaceId: string;
  definition: WorkflowDefinition;
  baseUrl: string;
  /** The author's text the definition was parsed from, kept with the version (the console shows it again). */
  source?: string;
}

/**
 * Creates a workflow, or updates it by slug, from a definition already validated by
 * `parseDefinition`/`validateDefinition`. An update stores a new version; runs
 * already started keep the version they started with. A text that only changes what the
 * definition does not hold (comments, layout) replaces the current version's text, no bump.
 */
export async function applyWorkflow(db: Db, box: SecretBox, args: ApplyArgs): Promise<ApplyResult> {
  const def = args.definition;
  const ws = await db.workspace.findUnique({
    where: { id: args.workspaceId },
    select: { plan: true, maxWebhookEndpoints: true, maxSecrets: true, maxReviewAssignees: true },
  });
  if (!ws) throw new AppError('not_found', `Workspace ${args.workspaceId} not found`);
  checkAssignees(def, workspaceCaps(ws).review_assignees);

  return db.$transaction(async (tx) => {
    // Row lock on the (workspace, slug) pair serializes concurrent applies of one workflow.
    const existing = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM workflows WHERE workspace_id = ${args.workspaceId} AND slug = ${def.slug} FOR UPDATE`;
    if (existing.length === 0) {
      const id = newId('wf');
      const secrets = newTriggerSecrets();
      const row = await tx.workflow.create({
        data: {
          id,
          workspaceId: args.workspaceId,
          slug: def.slug,
          name: def.name,
          description: def.description,
          version: 1,
          triggerId: newId('trg'),
          triggerSecretEnc: box.seal(secrets.secret, sealedContext.triggerSecret(args.workspaceId, id)),
          triggerSigningSecretEnc: box.seal(secrets.signingSecret, sealedContext.triggerSigningSecret(args.workspaceId, id)),
          versions: { create: { version: 1, definition: def as object, source: args.source ?? null } },
        },
      });
      return { workflow: toWorkflowView(row, def, args.baseUrl), change: 'created' as const };
    }
    const current = await tx.workflow.findUniqueOrThrow({ where: { id: existing[0].id } });
    const currentDef = await tx.workflowVersion.findUniqueOrThrow({
      where: { workflowId_version: { workflowId: current.id, version: current.version } },
    });
    // JSONB does not keep key order, so compare canonical forms.
    if (canonicalJson(currentDef.definition) === canonicalJson(def)) {
      if (args.source !== undefined && args.source !== currentDef.source) {
        await tx.workflowVersion.update({
          where: { workflowId_version: { workflowId: current.id, version: current.version } },
          data: { source: args.source },
        });
      }
      return { workflow: toWorkflowView(current, def, args.baseUrl), change: 'unchanged' as const };
    }
    const version = current.version + 1;
    await tx.workflowVersion.create({ data: { workflowId: current.id, version, definition: def as object, source: args.source ?? null } });
    const row = await tx.workflow.update({
      where: { id: current.id },
      data: { version, name: def.name, description: def.description, updatedAt: new Date() },
    });
    return { workflow: toWorkflowView(row, def, args.baseUrl), change: 'updated' as const };
  });
}

async function loadDefinition(db: Db, workflowId: string, version: number): Promise<WorkflowDefinition> {
  const v = await db.workflowVersion.findUniqueOrThrow({ where: { workflowId_version: { workflowId, version } } });
  return v.definition as unknown as WorkflowDefinition;
}

/** A workflow of this workspace with its current definition; a foreign id is 404 like a missing one. */
export async function findWorkflow(db: Db, workspaceId: string, workflowId: string) {
  const row = await db.workflow.findFirst({ where: { id: workflowId, workspaceId } });
  if (!row) throw new AppError('workflow_not_found', `Workflow ${workflowId} not found`);
  return { row, definition: await loadDefinition(db, row.id, row.version) };
}

export async function getWorkflow(db: Db, args: { workspaceId: string; workflowId: string; baseUrl: string }): Promise<WorkflowView> {
  const { row, definition } = await findWorkflow(db, args.workspaceId, args.workflowId);
  return toWorkflowView(row, definition, args.baseUrl);
}

export async function listWorkflows(
  db: Db,
  args: { workspaceId: string; limit: number; cursor?: string; baseUrl: string },
): Promise<Page<WorkflowView>> {
  const before = decodeCursor(args.cursor);
  const rows = await db.workflow.findMany({
    // Archived workflows are hidden from lists (archive.ts).
    where: { workspaceId: args.workspaceId, archivedAt: null, ...(before !== undefined ? { seq: { lt: before } } : {}) },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  // Only the current version of each listed workflow, in one query.
  const versions = await db.workflowVersion.findMany({
    where: { OR: rows.map((r) => ({ workflowId: r.id, version: r.version })) },
  });
  const defs = new Map(versions.map((v) => [v.workflowId, v.definition as unknown as WorkflowDefinition]));
  return toPage(rows, args.limit, (r) => toWorkflowView(r, defs.get(r.id)!, args.baseUrl));
}

export interface TriggerSecrets {
  workflow_id: string;
  url: string;
  secret: string;
  signing_secret: string;
  /** After `svc triggers rotate`: until when the previous pair is still accepted (null when it is not). */
  previous_secrets_expire_at: string | null;
  auth: { secret: boolean; signature: boolean };
}

export async function showTrigger(db: Db, box: SecretBox, args: { workflowId: string; baseUrl: string }): Promise<TriggerSecrets> {
  const row = await db.workflow.findUnique({ where: { id: args.workflowId } });
  if (!row) throw new AppError('workflow_not_found', `Workflow ${args.workflowId} not found`);
  const def = await loadDefinition(db, row.id, row.version);
  return {
    workflow_id: row.id,
    url: `${args.baseUrl}/hooks/${row.triggerId}`,
    secret: box.open(row.triggerSecretEnc, sealedContext.triggerSecret(row.workspaceId, row.id)),
    signing_secret: box.open(row.triggerSigningSecretEnc, sealedContext.triggerSigningSecret(row.workspaceId, row.id)),
    previous_secrets_expire_at: previousInForce(row.triggerPreviousExpiresAt) ? row.triggerPreviousExpiresAt.toISOString() : null,
    auth: { secret: def.trigger.secret, signature: def.trigger.signature },
  };
}
