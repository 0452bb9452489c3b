import { createHash } from 'node:crypto';
import type { WorkflowDefinition } from '../definitions';
import type { DecidedVia } from '../reviews/decidedVia';

/** How the gateway addresses a run's Temporal execution: by the workflow id stored on its row. */
export interface RunRef {
  runId: string;
  /** runs.temporal_workflow_id: the run id, or the namespaced Idempotency-Key (runWorkflowIdFor). */
  temporalWorkflowId: string;
}

export interface LaunchRequest extends RunRef {
  workspaceId: string;
  workflowId: string;
  workflowVersion: number;
  definition: WorkflowDefinition;
  input: unknown;
}

/** How long a caller waits for a run to settle; aborting the signal ends the wait, never the run. */
export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Resolves once the run is known to have settled in PostgreSQL (SettleNotices), which may be
   * before Temporal answers the wait: the wait then ends there. Never rejects.
   */
  settled?: Promise<void>;
}

/**
 * PostgreSQL's notices of the runs this process waits on settling (on its own channel, from
 * listenForSettledRuns; sent at the settling commit), to end a `wait: true` without waiting for
 * Temporal to finish the workflow task. A notice's body, when it has one, is the run's row as
 * `GET` reads it. Best effort: a notice can be lost (its connection down), so the wait through
 * Temporal always stays.
 */
export interface SettleNotices {
  /** The channel listened on: a run waited on here is notified on it. */
  readonly channel: string;
  watch(runId: string): { next(): Promise<string | undefined>; close(): void };
}

/**
 * `started`: the run's execution exists (just started, or found already there).
 * `id_taken`: an open execution of ANOTHER run holds the workflow id (a key reused after the
 * 24 h window while its earlier run is still open, e.g. waiting for a review); nothing started.
 */
export type StartOutcome = 'started' | 'id_taken';

/** The port through which use cases reach Temporal (implemented in temporal/client). */
export interface RunLauncher {
  /**
   * Starts the run's execution; starting it again never runs it twice. With `wait`, the start
   * and the wait are one call (update-with-start) that returns when the run settles (or
   * `wait.settled` resolves) or the wait is over; a caller that goes away never leaves the run
   * unstarted.
   */
  start(req: LaunchRequest, wait?: WaitOptions): Promise<StartOutcome>;
  /**
   * Resolves when the run settles or the wait is over, whichever is first. Throws AppError
   * `unavailable` (503, Retry-After) when Temporal refuses the wait because the workflow's
   * in-flight update limit is reached.
   */
  waitForSettle(ref: RunRef, wait: WaitOptions): Promise<void>;
}

/**
 * The longest workflow id svc gives Temporal: a server on PostgreSQL or MySQL stores workflow ids
 * in VARCHAR(255) columns, whatever its `limit.maxIDLength` allows.
 */
export const MAX_TEMPORAL_WORKFLOW_ID = 255;

/**
 * The Temporal workflow id of a run: with an Idempotency-Key, the key namespaced by
 * workspace and idempotency scope (`<ws_id>/<wf_id>/<key>` for API starts, `<ws_id>/<trg_id>/<key>`
 * for inbound triggers), so an operator finds a customer's run in the Temporal UI by the key they
 * sent; without one, the run id. Prefixed ids never contain `/`, so the first two segments are
 * fixed and any `/` in the key cannot make two ids collide. A key too long for that keeps its
 * start and ends in `~` and its SHA-256 (`<ws_id>/<wf_id>/<start of key>~<64 hex>`), 255 characters in all.
 */
export function runWorkflowIdFor(args: { runId: string; workspaceId: string; scope: string; idempotencyKey?: string }): string {
  if (!args.idempotencyKey) return args.runId;
  const id = `${args.workspaceId}/${args.scope}/${args.idempotencyKey}`;
  if (id.length <= MAX_TEMPORAL_WORKFLOW_ID) return id;
  const digest = `~${createHash('sha256').update(args.idempotencyKey).digest('hex')}`;
  return id.slice(0, MAX_TEMPORAL_WORKFLOW_ID - digest.length) + digest;
}

export interface ReviewDecision {
  reviewId?: string;
  decision: 'approved' | 'rejected';
  comment?: string | null;
  decidedBy?: string | null;
  /** Who decided, from the caller's authenticated context (never from a request body). */
  decidedVia: DecidedVia;
}

/**
 * Messages to a run's workflow. Each answers `closed` when the workflow has already
 * finished (the caller then reads the final state), or throws the AppError the workflow's
 * validator decided on (or `unavailable` when the in-flight update limit is reached).
 */
export interface RunControl {
  cancel(ref: RunRef): Promise<'cancelled' | 'closed'>;
  decide(ref: RunRef, decision: ReviewDecision): Promise<'decided' | 'closed'>;
}
