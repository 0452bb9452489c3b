import type { Db } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import type { TriggerSettings, WorkflowDefinition } from '../definitions';
import { DEFAULT_TRIGGER } from '../definitions/schema';
import { AppError } from '../errors';
import { hasPrefix } from '../ids';
import { startRun } from '../runs/startRun';
import type { StartRunDeps } from '../runs/startRun';
import type { RunView } from '../runs/runView';
import { workspaceLimits } from '../workspaces/limits';
import { sealedContext } from '../secrets/contexts';
import type { WorkspaceLimits } from '../workspaces/limits';
import { verifyTriggerRequest } from './checks';
import { triggerSecretsInForce } from './secrets';
import type { HeaderBag, TriggerCredentials } from './checks';

/** A workflow's inbound trigger, with its settings and secrets opened. */
export interface LoadedTrigger extends TriggerCredentials {
  triggerId: string;
  workflowId: string;
  workspaceId: string;
  /** The workspace's figures now: the trigger is rate-limited at its per-key figure. */
  limits: WorkspaceLimits;
}

/**
 * The trigger behind `/hooks/{trigger_id}`, or null. The answer for a missing id and a
 * malformed one is the same (null), and the caller turns both into the same 404.
 */
export async function loadTrigger(db: Db, box: SecretBox, triggerId: string): Promise<LoadedTrigger | null> {
  if (!hasPrefix(triggerId, 'trg')) return null;
  const row = await db.workflow.findUnique({
    where: { triggerId },
    select: {
      id: true,
      workspaceId: true,
      version: true,
      triggerSecretEnc: true,
      triggerSigningSecretEnc: true,
      triggerPreviousSecretEnc: true,
      triggerPreviousSigningSecretEnc: true,
      triggerPreviousExpiresAt: true,
      archivedAt: true,
      triggerEnabled: true,
      workspace: { select: { plan: true, rateLimitPerMin: true, concurrency: true } },
    },
  });
  // An archived workflow, or one whose trigger is off, answers like an unknown trigger.
  if (!row || row.archivedAt || !row.triggerEnabled) return null;
  const v = await db.workflowVersion.findUnique({ where: { workflowId_version: { workflowId: row.id, version: row.version } } });
  if (!v) return null;
  const def = v.definition as unknown as WorkflowDefinition;
  const settings: TriggerSettings = {
    secret: def.trigger?.secret ?? DEFAULT_TRIGGER.secret,
    signature: def.trigger?.signature ?? DEFAULT_TRIGGER.signature,
    ip_allowlist: def.trigger?.ip_allowlist ?? [],
    required_headers: def.trigger?.required_headers ?? {},
  };
  return {
    triggerId,
    workflowId: row.id,
    workspaceId: row.workspaceId,
    limits: workspaceLimits(row.workspace),
    settings,
    ...triggerSecretsInForce(box, row),
  };
}

export interface FireTriggerArgs {
  /** The trigger, loaded (loadTrigger) and rate-limited by the caller before the body was read. */
  trigger: LoadedTrigger;
  /** The resolved client address (socket peer, or X-Forwarded-For behind a trusted proxy). */
  ip: string;
  headers: HeaderBag;
  /** The body as received, already within the 256 KB limit. */
  rawBody: Buffer;
  /**
   * Reads the `Idempotency-Key` header; called only once the request has passed every
   * check, so a stranger learns nothing from a malformed key's 400.
   */
  readIdempotencyKey(): string | undefined;
}

export interface FireTriggerResult {
  run: RunView;
  /** True when the Idempotency-Key was seen on this trigger within 24 h: nothing was started. */
  replayed: boolean;
}

/**
 * An inbound webhook delivery: checks in the contract's order, each refusing
 * before any run exists, then starts the run (trigger `"webhook"`, input = the body)
 * without waiting for it. The idempotency scope is the trigger and only the key counts:
 * a key seen within 24 h answers with the original run whatever the body.
 */
export async function fireTrigger(deps: StartRunDeps, args: FireTriggerArgs): Promise<FireTriggerResult> {
  const { trigger } = args;
  const input = verifyTriggerRequest(trigger, { ip: args.ip, headers: args.headers, rawBody: args.rawBody });
  const idempotencyKey = args.readIdempotencyKey();
  // startRun checks the plan (403) and the input schema (422) before touching idempotency.
  return startRun(
    { prisma: deps.prisma, sql: deps.sql, launcher: deps.launcher },
    {
      workspaceId: trigger.workspaceId,
      workflowId: trigger.workflowId,
      input,
      body: input,
      idempotencyKey,
      idempotencyScope: trigger.triggerId,
      idempotency: 'key',
      trigger: 'webhook',
    },
  );
}
