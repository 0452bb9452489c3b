import type { Db } from '@svc/db';
import { sha256Hex } from '@svc/signing';
import { validateRunInput } from '../definitions';
import type { WorkflowDefinition } from '../definitions';
import { AppError } from '../errors';
import { newId } from '../ids';
import { canonicalJson } from '../shared/canonicalJson';
import { PLANS, isPlan } from '../workspaces/plans';
import { findWorkflow } from '../workflows/workflows';
import type { RunLauncher } from './launcher';
import { getRun } from './readRuns';
import type { RunView } from './runView';
import { jsonBytes } from './limits';
import { joinSlotLine } from './slots';

export const MAX_INPUT_BYTES = 1024 * 1024;
export const IDEMPOTENCY_TTL_HOURS = 24;

export interface StartRunDeps {
  prisma: Db;
  launcher: RunLauncher;
}

export interface StartRunArgs {
  workspaceId: string;
  workflowId: string;
  input: Record<string, unknown>;
  /** The whole request body, canonicalized for the idempotency fingerprint. */
  body: unknown;
  idempotencyKey?: string;
  trigger: 'api' | 'webhook';
  /** Idempotency scope: the workflow id for API starts, the trigger id for inbound webhooks. */
  idempotencyScope?: string;
  /**
   * What a repeated key must match: `body` (API starts: same key + different body → 422
   * idempotency_key_reused) or `key` (inbound triggers, API.md §6.7: the key alone decides,
   * a key seen within 24 h replays the original run whatever the body). Default `body`.
   */
  idempotency?: 'body' | 'key';
  wait?: { timeoutMs: number; signal?: AbortSignal };
}

export interface StartRunResult {
  run: RunView;
  replayed: boolean;
}

/** Where a string (value or key) holds U+0000, which PostgreSQL cannot store; null when none does. */
function pathOfNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathOfNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.${JSON.stringify(k).slice(1, -1)}`;
      const found = pathOfNul(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Starts a run, exactly once per idempotency key. The key, the run and its steps are
 * written in one transaction whose primary key makes concurrent duplicates collide;
 * only the winner starts the Temporal workflow (whose id is the run id, so even a
 * repeated start cannot create a second execution).
 */
export async function startRun(deps: StartRunDeps, args: StartRunArgs): Promise<StartRunResult> {
  const { prisma, launcher } = deps;
  const { row: workflow, definition } = await findWorkflow(prisma, args.workspaceId, args.workflowId);

  const ws = await prisma.workspace.findUniqueOrThrow({ where: { id: args.workspaceId }, select: { plan: true } });
  if (!isPlan(ws.plan) || !PLANS[ws.plan].liveRuns) {
    throw new AppError('plan_does_not_allow_runs', `The ${ws.plan} plan does not allow runs; upgrade the workspace's plan`);
  }
  if (jsonBytes(args.input) > MAX_INPUT_BYTES) {
    throw new AppError('payload_too_large', 'The run input is larger than 1 MiB');
  }
  const nul = pathOfNul(args.input, 'input');
  if (nul) {
    throw new AppError('validation_failed', 'The run input is not valid', {
      errors: [{ path: nul, message: 'strings cannot contain U+0000' }],
    });
  }
  await validateRunInput(definition.input_schema, args.input);

  const fingerprint = sha256Hex(canonicalJson({ workflow_id: workflow.id, body: args.body }));
  const scope = args.idempotencyScope ?? workflow.id;
  const candidateId = newId('run');

  const { runId, created } = await prisma.$transaction(async (tx) => {
    if (args.idempotencyKey) {
      // A key older than the retention window is treated as new.
      await tx.$executeRaw`DELETE FROM idempotency_keys
        WHERE workspace_id = ${args.workspaceId} AND scope = ${scope} AND key = ${args.idempotencyKey}
          AND created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;
      const inserted = await tx.$queryRaw<{ run_id: string }[]>`
        INSERT INTO idempotency_keys (workspace_id, scope, key, fingerprint, run_id)
        VALUES (${args.workspaceId}, ${scope}, ${args.idempotencyKey}, ${fingerprint}, ${candidateId})
        ON CONFLICT DO NOTHING RETURNING run_id`;
      if (inserted.length === 0) {
        const prior = await tx.idempotencyKey.findUniqueOrThrow({
          where: { workspaceId_scope_key: { workspaceId: args.workspaceId, scope, key: args.idempotencyKey } },
        });
        if (args.idempotency !== 'key' && prior.fingerprint !== fingerprint) {
          throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body');
        }
        return { runId: prior.runId, created: false };
      }
    }
    await tx.run.create({
      data: {
        id: candidateId,
        workspaceId: args.workspaceId,
        workflowId: workflow.id,
        workflowVersion: workflow.version,
        status: 'queued',
        input: args.input as object,
        trigger: args.trigger,
        idempotencyKey: args.idempotencyKey ?? null,
        temporalWorkflowId: candidateId,
        steps: {
          create: definition.steps.map((s, position) => ({ key: s.key, name: s.name, type: s.type, position })),
        },
      },
    });
    await joinSlotLine(tx, candidateId);
    return { runId: candidateId, created: true };
  });

  const launch = {
    runId,
    temporalWorkflowId: runId,
    workspaceId: args.workspaceId,
    workflowId: workflow.id,
    workflowVersion: workflow.version,
    definition,
    input: args.input,
  };
  if (created) {
    try {
      await launcher.start(launch);
    } catch {
      // Nothing half-written: without its workflow the run must not exist, and the key
      // must stay free for the client's retry.
      await prisma.$transaction([prisma.idempotencyKey.deleteMany({ where: { runId } }), prisma.run.deleteMany({ where: { id: runId } })]);
      throw new AppError('unavailable', 'The run could not be started; retry the request');
    }
  } else {
    // A replay of a run that never left `queued` re-asserts the start, covering a first
    // request that died between commit and start. The launcher refuses to start a run id
    // that already has an execution, running or closed, so this can never run it twice.
    const prior = await prisma.run.findUnique({ where: { id: runId }, select: { workflowVersion: true, input: true, status: true } });
    if (prior?.status === 'queued') {
      const pinned = await prisma.workflowVersion.findUniqueOrThrow({
        where: { workflowId_version: { workflowId: workflow.id, version: prior.workflowVersion } },
      });
      const definition = pinned.definition as unknown as WorkflowDefinition;
      await launcher.start({ ...launch, workflowVersion: prior.workflowVersion, definition, input: prior.input }).catch(() => undefined);
    }
  }

  if (args.wait) await launcher.waitForSettle(runId, args.wait.timeoutMs, args.wait.signal);
  return { run: await getRun(prisma, { workspaceId: args.workspaceId, runId }), replayed: !created };
}
