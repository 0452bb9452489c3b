import { jsonRow, Prisma, rowsOf } from '@svc/db';
import type { Db, SqlSource } from '@svc/db';
import { sha256Hex } from '@svc/signing';
import { validateRunInput } from '../definitions';
import type { WorkflowDefinition } from '../definitions';
import { AppError } from '../errors';
import { newId } from '../ids';
import { canonicalJson } from '../shared/canonicalJson';
import { scanJson, tooDeepError } from '../shared/jsonDepth';
import { pathOfNul } from '../shared/nul';
import { workspaceLimits } from '../workspaces/limits';
import { PLANS, isPlan } from '../workspaces/plans';
import { pinnedDefinition } from './definitionCache';
import { runWorkflowIdFor } from './launcher';
import type { LaunchRequest, RunLauncher, RunRef, SettleNotices, WaitOptions } from './launcher';
import { getRun, runFromJson, runSelectJson } from './readRuns';
import type { RunView } from './runView';
import { jsonBytes } from './limits';
import { QUEUE_CAP_PER_SLOT } from './slots';

export const MAX_INPUT_BYTES = 1024 * 1024;
export const IDEMPOTENCY_TTL_HOURS = 24;

export interface StartRunDeps {
  prisma: Db;
  /** Where the hot statements (look-up, write, read) run: named statements when given (@svc/db PreparedSql). */
  sql?: SqlSource;
  launcher: RunLauncher;
  /** Ends a new run's wait at its settling commit, before Temporal answers (launcher.ts). */
  settleNotices?: SettleNotices;
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
   * idempotency_key_reused) or `key` (inbound triggers: the key alone decides,
   * a key seen within 24 h replays the original run whatever the body). Default `body`.
   */
  idempotency?: 'body' | 'key';
  wait?: Pick<WaitOptions, 'timeoutMs' | 'signal'>;
}

export interface StartRunResult {
  run: RunView;
  replayed: boolean;
}

/** What a start needs to know first: the workspace's plan and concurrency, the workflow's current version. */
export interface StartLookup {
  plan: string;
  version: number;
  concurrency: number;
}

/** The look-up's statement: the workspace and the workflow, one row. */
function lookUpSelect(workspaceId: string, workflowId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ws.plan, ws.rate_limit_per_min, ws.concurrency, w.version
      FROM workspaces ws LEFT JOIN workflows w ON w.id = ${workflowId} AND w.workspace_id = ws.id AND w.archived_at IS NULL
     WHERE ws.id = ${workspaceId}`;
}

/** A look-up row's figures (404 before 403, as before). */
function lookedUp(
  row: { plan: string; rate_limit_per_min: number | null; concurrency: number | null; version: number | null } | null | undefined,
  workflowId: string,
): StartLookup {
  if (!row || row.version === null) throw new AppError('workflow_not_found', `Workflow ${workflowId} not found`);
  const limits = workspaceLimits({ plan: row.plan, rateLimitPerMin: row.rate_limit_per_min, concurrency: row.concurrency });
  return { plan: row.plan, version: row.version, concurrency: limits.concurrency };
}

async function lookUp(db: SqlSource, workspaceId: string, workflowId: string): Promise<StartLookup> {
  const [row] = await rowsOf<Parameters<typeof lookedUp>[0]>(db, lookUpSelect(workspaceId, workflowId));
  return lookedUp(row, workflowId);
}

/** How long a start refused for a full queue is told to wait. */
const QUEUE_FULL_RETRY_AFTER_S = '10';

interface Written {
  /** Whether this request's write created the run (false: the key was already taken, or the queue is full). */
  created: boolean;
  /** The run as written (runSelectJson), when created. */
  run: unknown;
  /** False when the workspace already holds its cap of queued runs: nothing was written. */
  room: boolean;
  /**
   * With a taken key: what it holds, as of the write's start; null when that is not it (a
   * concurrent first request had not committed yet, or replaced an expired key meanwhile).
   */
  prior: Prior | null;
}

interface Prior {
  runId: string;
  fingerprint: string;
  status: string;
  temporalWorkflowId: string;
}

/**
 * The key, the run, its steps and its place in the workspace's slot line (not yet asking: see
 * slots.ts claimSlot), written by ONE statement, so atomically and in one round trip. The key's
 * primary key makes concurrent duplicates collide; a key older than the window is taken over by
 * the new run (treated as new). A taken key comes back with its run.
 */
async function writeRun(
  db: SqlSource,
  r: {
    runId: string;
    workspaceId: string;
    workflowId: string;
    version: number;
    input: unknown;
    trigger: string;
    key: string | null;
    scope: string;
    /** The request's fingerprint, with a key (null without: nothing to compare it with). */
    fingerprint: string | null;
    temporalWorkflowId: string;
    steps: WorkflowDefinition['steps'];
    /** The workspace's cap of queued runs. */
    maxQueued: number;
    /** Where the run's settling transactions notify it (settleNotices.ts): this request waits on them. */
    settleChannel: string | null;
  },
): Promise<Written> {
  const steps = JSON.stringify(r.steps.map((s, position) => ({ key: s.key, name: s.name, type: s.type, position })));
  const [row] = await rowsOf<{
    created: boolean;
    room: boolean;
    run_id: string | null;
    fingerprint: string | null;
    status: string | null;
    temporal_workflow_id: string | null;
    run: unknown;
  }>(
    db,
    Prisma.sql`
    WITH room AS (
      -- Counted without a lock: starts racing at the very edge may pass the cap by their number.
      SELECT (SELECT count(*) FROM run_slots WHERE workspace_id = ${r.workspaceId} AND NOT holding) < ${r.maxQueued} AS ok
    ), ik AS (
      INSERT INTO idempotency_keys (workspace_id, scope, key, fingerprint, run_id)
      SELECT ${r.workspaceId}, ${r.scope}, ${r.key}::text, ${r.fingerprint}, ${r.runId}
       WHERE ${r.key}::text IS NOT NULL AND (SELECT ok FROM room)
      ON CONFLICT (workspace_id, scope, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, run_id = EXCLUDED.run_id, created_at = now()
        WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
      RETURNING run_id
    ), run AS (
      INSERT INTO runs (id, workspace_id, workflow_id, workflow_version, status, input, trigger, idempotency_key, temporal_workflow_id,
                        settle_channel)
      SELECT ${r.runId}, ${r.workspaceId}, ${r.workflowId}, ${r.version}, 'queued', ${JSON.stringify(r.input)}::jsonb, ${r.trigger},
             ${r.key}::text, ${r.temporalWorkflowId}, ${r.settleChannel}::text
       WHERE (${r.key}::text IS NULL OR EXISTS (SELECT 1 FROM ik)) AND (SELECT ok FROM room)
      RETURNING *
    ), steps AS (
      INSERT INTO run_steps (run_id, key, name, type, position)
      SELECT run.id, s.key, s.name, s.type, s.position
        FROM run, jsonb_to_recordset(${steps}::jsonb) AS s(key text, name text, type text, position int)
      RETURNING *
    ), slot AS (
      INSERT INTO run_slots (run_id, workspace_id, seq) SELECT id, workspace_id, seq FROM run
    )
    SELECT EXISTS (SELECT 1 FROM run) AS created, (SELECT ok FROM room) AS room, k.run_id, k.fingerprint, pr.status, pr.temporal_workflow_id,
           ${runSelectJson(r.runId, r.workspaceId, { runs: Prisma.sql`run`, steps: Prisma.sql`steps` })} AS run
      FROM (SELECT 1) one
      LEFT JOIN idempotency_keys k ON k.workspace_id = ${r.workspaceId} AND k.scope = ${r.scope} AND k.key = ${r.key}::text
            AND k.created_at >= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
      LEFT JOIN runs pr ON pr.id = k.run_id`,
  );
  if (row.created || !row.run_id) return { created: row.created, run: row.run, room: row.room, prior: null };
  return {
    created: false,
    run: null,
    room: row.room,
    prior: { runId: row.run_id, fingerprint: row.fingerprint!, status: row.status!, temporalWorkflowId: row.temporal_workflow_id! },
  };
}

/** A key held by a first request that was not committed when this one's write began, read once it is. */
async function readPrior(prisma: Db, where: { workspaceId: string; scope: string; key: string }): Promise<Prior> {
  const k = await prisma.idempotencyKey.findUnique({ where: { workspaceId_scope_key: where } });
  const run = k && (await prisma.run.findUnique({ where: { id: k.runId }, select: { status: true, temporalWorkflowId: true } }));
  // That first request could not start its run and freed the key again: this one may retry.
  if (!k || !run) throw new AppError('unavailable', 'The run could not be started; retry the request', { headers: { 'Retry-After': '1' } });
  return { runId: k.runId, fingerprint: k.fingerprint, ...run };
}

/**
 * Starts a run, exactly once per idempotency key, in at most four database round trips (plan
 * and workflow, unless read with the API key; the write, which returns the new run; the pinned
 * definition, only the first time this process sees that version; with `wait`, the settled run,
 * unless its settling notice carried it) plus one Temporal call, which also does the wait
 * (update-with-start).
 * Only the request whose write created the run starts its Temporal workflow, by the id stored
 * on its row (runWorkflowIdFor).
 */
export async function startRun(deps: StartRunDeps, args: StartRunArgs): Promise<StartRunResult> {
  const { prisma, launcher } = deps;
  const sql = deps.sql ?? prisma;
  const { plan, version, concurrency } = await lookUp(sql, args.workspaceId, args.workflowId);
  if (!isPlan(plan) || !PLANS[plan].liveRuns) {
    throw new AppError('plan_does_not_allow_runs', `The ${plan} plan does not allow runs; upgrade the workspace's plan`);
  }
  // Every door (API, trigger, console) comes through here: one walk, then the size, bounded by it.
  const scan = scanJson(args.input);
  if (scan.tooDeep) throw tooDeepError('input');
  if (jsonBytes(args.input) > MAX_INPUT_BYTES) {
    throw new AppError('payload_too_large', 'The run input is larger than 1 MiB');
  }
  if (scan.hasNul) {
    throw new AppError('validation_failed', 'The run input is not valid', {
      errors: [{ path: pathOfNul(args.input, 'input') ?? 'input', message: 'strings cannot contain U+0000' }],
    });
  }
  const definition = await pinnedDefinition(prisma, args.workflowId, version);
  await validateRunInput(definition.input_schema, args.input, args.workspaceId);

  // Only a keyed request is ever compared with another (its replays): a start without a key
  // neither canonicalizes nor hashes its body (~50 ms of the event loop for a 1 MiB one).
  const fingerprint = args.idempotencyKey ? sha256Hex(canonicalJson({ workflow_id: args.workflowId, body: args.body })) : null;
  const scope = args.idempotencyScope ?? args.workflowId;
  const runId = newId('run');
  const temporalWorkflowId = runWorkflowIdFor({ runId, workspaceId: args.workspaceId, scope, idempotencyKey: args.idempotencyKey });
  // Only a run this request waits on is notified when it settles, on this process's channel.
  const settleChannel = args.wait ? (deps.settleNotices?.channel ?? null) : null;
  const written = await writeRun(sql, {
    runId,
    workspaceId: args.workspaceId,
    workflowId: args.workflowId,
    version,
    input: args.input,
    trigger: args.trigger,
    key: args.idempotencyKey ?? null,
    scope,
    fingerprint,
    temporalWorkflowId,
    steps: definition.steps,
    maxQueued: concurrency * QUEUE_CAP_PER_SLOT,
    settleChannel,
  });
  const read = (id: string) => getRun(sql, { workspaceId: args.workspaceId, runId: id });

  if (written.created) {
    const req = {
      runId,
      temporalWorkflowId,
      workspaceId: args.workspaceId,
      workflowId: args.workflowId,
      workflowVersion: version,
      definition,
      input: args.input,
    };
    // A new run's id is notified only by its own settling commits (on settleChannel): the
    // first notice ends the wait, ~5 ms before Temporal's answer to it (the workflow task's
    // completion) would, and its body is the run as committed, the answer.
    const notice = settleChannel ? deps.settleNotices?.watch(runId) : undefined;
    let noticed: RunView | undefined;
    const settled = notice
      ?.next()
      .then((body) => {
        noticed = body === undefined ? undefined : runFromJson(JSON.parse(body), runId);
      })
      // A body that cannot be read is read from the database instead.
      .catch(() => undefined);
    try {
      await ensureStarted(deps, req, args.wait && settled ? { ...args.wait, settled } : args.wait);
    } catch {
      // Nothing half-written: without its workflow the run must not exist, and the key
      // must stay free for the client's retry.
      await prisma.$transaction([prisma.idempotencyKey.deleteMany({ where: { runId } }), prisma.run.deleteMany({ where: { id: runId } })]);
      throw new AppError('unavailable', 'The run could not be started; retry the request');
    } finally {
      notice?.close();
    }
    // Without a wait, the run as written (queued) is the answer; a wait answers it as it settled.
    return { run: args.wait ? (noticed ?? (await read(runId))) : runFromJson(written.run, runId), replayed: false };
  }

  // A replay is answered even when the queue is full; a new run is not created.
  if (!written.prior && !written.room) {
    throw new AppError('queue_full', `The workspace already holds ${concurrency * QUEUE_CAP_PER_SLOT} queued runs; retry later`, {
      headers: { 'Retry-After': QUEUE_FULL_RETRY_AFTER_S },
    });
  }
  const prior = written.prior ?? (await readPrior(prisma, { workspaceId: args.workspaceId, scope, key: args.idempotencyKey! }));
  if (args.idempotency !== 'key' && prior.fingerprint !== fingerprint) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body');
  }
  let ref = { runId: prior.runId, temporalWorkflowId: prior.temporalWorkflowId };
  if (prior.status === 'queued') {
    // A replay of a run that never left `queued` re-asserts the start, covering a first request
    // that died between commit and start. This never runs one run twice (runLauncher.ts): the
    // start carries the run id as Temporal's request id, deduplicated against the current
    // execution, and an existing execution of this run is recognised by its SvcRunId.
    const run = await read(prior.runId);
    const req = {
      ...ref,
      workspaceId: args.workspaceId,
      workflowId: args.workflowId,
      workflowVersion: run.workflow_version,
      definition: await pinnedDefinition(prisma, args.workflowId, run.workflow_version),
      input: run.input,
    };
    ref = await ensureStarted(deps, req).catch(() => ref);
    if (!args.wait) return { run, replayed: true };
  }
  if (args.wait) await launcher.waitForSettle(ref, args.wait);
  return { run: await read(prior.runId), replayed: true };
}

/**
 * Makes sure the run's execution exists (and, with `wait`, waits for it to settle in the same
 * call). When an open execution of an EARLIER run still holds the keyed workflow id (the key was
 * reused after the 24 h window while that run waits, e.g. for a review), the run falls back to
 * its own id as workflow id, recorded on its row first, so it runs and stays addressable.
 */
async function ensureStarted(deps: StartRunDeps, req: LaunchRequest, wait?: WaitOptions): Promise<RunRef> {
  if ((await deps.launcher.start(req, wait)) === 'started') return req;
  const own = { ...req, temporalWorkflowId: req.runId };
  await deps.prisma.run.update({ where: { id: req.runId }, data: { temporalWorkflowId: own.temporalWorkflowId } });
  // A run id is never held by another run's execution.
  await deps.launcher.start(own, wait);
  return own;
}
