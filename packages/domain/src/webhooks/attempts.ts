import { Prisma, rowsOf } from '@svc/db';
import type { Db, SqlSource } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { iso } from '../shared/time';
import { disableEndpointTx, signingSecrets } from './endpoints';

/**
 * The delivery engine's reads and writes (used by the delivery workflow's activities).
 * Decisions about a delivery (succeeded, retry after how long, failed, endpoint disabled)
 * are taken here, in one transaction with the attempt they follow.
 */

export const RESPONSE_EXCERPT_BYTES = 4096;

/** Failure classes of an attempt (the attempt's `error`). */
export type AttemptErrorClass =
  'timeout' | 'dns' | 'connection' | 'tls' | 'blocked_address' | 'redirect' | 'http_error' | 'invalid_url' | 'internal';

export type PreparedAttempt =
  | { kind: 'skip'; reason: 'delivery_gone' | 'superseded' | 'not_pending' | 'endpoint_disabled' }
  | {
      kind: 'send';
      /** Whose delivery this is: the worker bounds each workspace's attempts in flight. */
      workspaceId: string;
      url: string;
      /** Newest first. */
      secrets: string[];
      /** The event body, the same bytes on every attempt. */
      body: string;
      eventId: string;
      eventType: string;
      /** Svc-Delivery-Attempt: the delivery's attempt count so far + 1. */
      attemptNumber: number;
    };

/** Everything an attempt needs, read just before sending; secrets never leave the activity. */
export async function prepareAttempt(
  db: SqlSource,
  box: SecretBox,
  args: { deliveryId: string; generation: number },
): Promise<PreparedAttempt> {
  // One statement: the delivery, its endpoint and its event.
  const [d] = await rowsOf<{
    generation: number;
    status: string;
    attemptCount: number;
    endpointId: string;
    workspaceId: string;
    endpointStatus: string;
    url: string;
    secretEnc: string;
    previousSecretEnc: string | null;
    previousSecretExpiresAt: Date | null;
    eventId: string;
    eventType: string;
    eventCreatedAt: Date;
    eventWorkspaceId: string;
    data: unknown;
  }>(
    db,
    Prisma.sql`
    SELECT d.generation, d.status, d.attempt_count AS "attemptCount",
           e.id AS "endpointId", e.workspace_id AS "workspaceId", e.status AS "endpointStatus", e.url,
           e.secret_enc AS "secretEnc", e.previous_secret_enc AS "previousSecretEnc",
           e.previous_secret_expires_at AS "previousSecretExpiresAt",
           ev.id AS "eventId", ev.type AS "eventType", ev.created_at AS "eventCreatedAt",
           ev.workspace_id AS "eventWorkspaceId", ev.data
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
      JOIN events ev ON ev.id = d.event_id
     WHERE d.id = ${args.deliveryId}`,
  );
  if (!d) return { kind: 'skip', reason: 'delivery_gone' };
  if (d.generation !== args.generation) return { kind: 'skip', reason: 'superseded' };
  if (d.status !== 'pending') return { kind: 'skip', reason: 'not_pending' };
  if (d.endpointStatus !== 'enabled') return { kind: 'skip', reason: 'endpoint_disabled' };
  // JSONB keeps one canonical key order, so this is byte-identical on every attempt.
  const body = JSON.stringify({
    id: d.eventId,
    type: d.eventType,
    created_at: iso(d.eventCreatedAt),
    workspace_id: d.eventWorkspaceId,
    data: d.data,
  });
  return {
    kind: 'send',
    workspaceId: d.workspaceId,
    url: d.url,
    secrets: signingSecrets(box, {
      id: d.endpointId,
      workspaceId: d.workspaceId,
      secretEnc: d.secretEnc,
      previousSecretEnc: d.previousSecretEnc,
      previousSecretExpiresAt: d.previousSecretExpiresAt,
    }),
    body,
    eventId: d.eventId,
    eventType: d.eventType,
    attemptNumber: d.attemptCount + 1,
  };
}

/** A delivery stopped before sending (endpoint disabled or gone): failed, nothing more scheduled. */
export async function stopDelivery(db: Db, args: { deliveryId: string; generation: number }): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id: args.deliveryId, generation: args.generation, status: 'pending' },
    data: { status: 'failed', nextAttemptAt: null },
  });
}

/** What one HTTP attempt measured. */
export interface AttemptMeasurement {
  startedAt: string;
  durationMs: number;
  /** 0 = no response. */
  responseStatus: number;
  responseBodyExcerpt: string;
  error: AttemptErrorClass | null;
  /** Parsed Retry-After of a 429/503, in ms. */
  retryAfterMs: number | null;
}

export interface AttemptResult extends AttemptMeasurement {
  deliveryId: string;
  generation: number;
  /** Unique per (workflow, loop index): recording twice (activity retry) changes nothing. */
  attemptKey: string;
  /** The workflow's next (jittered) delay, or null when this was the last attempt of the window. */
  plannedDelayMs: number | null;
  /** Upper bound for honouring Retry-After. */
  retryAfterMaxMs: number;
  /** The window, for the disable reason (e.g. "24h"). */
  windowLabel: string;
}

export type AttemptDecision =
  | { next: 'retry'; delayMs: number }
  | { next: 'done'; status: 'succeeded' | 'failed' | 'superseded' | 'stopped'; endpointId: string | null; endpointDisabled: boolean };

export function isSuccessfulAttempt(r: Pick<AttemptResult, 'responseStatus' | 'error'>): boolean {
  return r.error === null && r.responseStatus >= 200 && r.responseStatus < 300;
}

/** The delay before the next attempt: the planned one, or longer when Retry-After asks for it (bounded). */
export function nextAttemptDelayMs(
  r: Pick<AttemptResult, 'responseStatus' | 'retryAfterMs' | 'plannedDelayMs' | 'retryAfterMaxMs'>,
): number | null {
  if (r.plannedDelayMs === null) return null;
  if ((r.responseStatus === 429 || r.responseStatus === 503) && r.retryAfterMs !== null) {
    return Math.max(r.plannedDelayMs, Math.min(r.retryAfterMs, r.retryAfterMaxMs));
  }
  return r.plannedDelayMs;
}

/** Retry-After as delta-seconds or an HTTP date → ms from `now` (null when absent or unreadable). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  if (!/^[A-Za-z]{3}, .+ GMT$/.test(v)) return null; // IMF-fixdate, the form HTTP requires
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** UTF-8 text of at most `RESPONSE_EXCERPT_BYTES` bytes, without NUL characters (PostgreSQL text). */
export function responseExcerpt(bytes: Buffer): string {
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, RESPONSE_EXCERPT_BYTES)).replace(/\u0000/g, '');
  while (Buffer.byteLength(text, 'utf8') > RESPONSE_EXCERPT_BYTES) text = text.slice(0, -1);
  return text;
}

/**
 * Records one attempt and decides what follows, atomically:
 * - 2xx → `succeeded` (and the endpoint's last success moves forward);
 * - 410 → the endpoint is disabled at once, the delivery `failed`;
 * - another failure with attempts left → `pending`, next attempt after the planned delay
 *   (longer when a 429/503 Retry-After asks, up to `retryAfterMaxMs`);
 * - the last attempt of the window failed → `failed`; and if the endpoint has had no success
 *   since this window started, it is disabled with a reason.
 * `endpointDisabled` says this delivery disabled the endpoint (the caller then emails admins).
 */
export async function recordAttempt(db: { prisma: Db; sql: SqlSource }, r: AttemptResult): Promise<AttemptDecision> {
  if (isSuccessfulAttempt(r)) {
    const done = await recordSuccess(db.sql, r);
    if (done) return done;
  }
  return db.prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM webhook_deliveries WHERE id = ${r.deliveryId} FOR UPDATE`;
    if (locked.length === 0) return { next: 'done', status: 'failed', endpointId: null, endpointDisabled: false };
    const d = await tx.webhookDelivery.findUniqueOrThrow({ where: { id: r.deliveryId }, include: { endpoint: true } });
    const disabledByThis = async () => {
      const e = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: d.endpointId } });
      return e.status === 'disabled' && e.disabledByDeliveryId === d.id;
    };

    const seen = await tx.webhookAttempt.findUnique({ where: { attemptKey: r.attemptKey } });
    if (seen) {
      // Recorded by an earlier try of this activity: answer from the state it left.
      if (d.generation !== r.generation) return { next: 'done', status: 'superseded', endpointId: d.endpointId, endpointDisabled: false };
      if (d.status === 'pending') {
        return { next: 'retry', delayMs: Math.max(0, (d.nextAttemptAt?.getTime() ?? Date.now()) - Date.now()) };
      }
      return {
        next: 'done',
        status: d.status as 'succeeded' | 'failed',
        endpointId: d.endpointId,
        endpointDisabled: await disabledByThis(),
      };
    }

    const startedAt = new Date(r.startedAt);
    const number = d.attemptCount + 1;
    await tx.webhookAttempt.create({
      data: {
        deliveryId: d.id,
        number,
        attemptKey: r.attemptKey,
        startedAt,
        durationMs: Math.max(0, Math.round(r.durationMs)),
        responseStatus: r.responseStatus,
        responseBodyExcerpt: r.responseBodyExcerpt,
        error: r.error,
      },
    });
    const ok = isSuccessfulAttempt(r);
    const base = { attemptCount: number, lastAttemptAt: startedAt, lastResponseStatus: r.responseStatus };
    if (ok) {
      const finishedAt = new Date(startedAt.getTime() + r.durationMs);
      await tx.$executeRaw`UPDATE webhook_endpoints SET last_success_at = GREATEST(COALESCE(last_success_at, ${finishedAt}), ${finishedAt}) WHERE id = ${d.endpointId}`;
    }
    const current = d.generation === r.generation && d.status === 'pending';
    if (!current) {
      // Superseded by a manual retry, or stopped (endpoint disabled) while this attempt was in
      // flight: the attempt is logged; a success still counts, nothing else changes.
      await tx.webhookDelivery.update({
        where: { id: d.id },
        data: { ...base, ...(ok ? { status: 'succeeded', nextAttemptAt: null } : {}) },
      });
      const status = d.generation !== r.generation ? 'superseded' : 'stopped';
      return { next: 'done', status, endpointId: d.endpointId, endpointDisabled: false };
    }
    if (ok) {
      await tx.webhookDelivery.update({ where: { id: d.id }, data: { ...base, status: 'succeeded', nextAttemptAt: null } });
      return { next: 'done', status: 'succeeded', endpointId: d.endpointId, endpointDisabled: false };
    }
    if (r.responseStatus === 410) {
      await tx.webhookDelivery.update({ where: { id: d.id }, data: { ...base, status: 'failed', nextAttemptAt: null } });
      const disabled = await disableEndpointTx(tx, {
        endpointId: d.endpointId,
        reason: `The endpoint answered 410 Gone (delivery ${d.id}, ${startedAt.toISOString()})`,
        byDeliveryId: d.id,
      });
      return { next: 'done', status: 'failed', endpointId: d.endpointId, endpointDisabled: disabled };
    }
    const delay = nextAttemptDelayMs(r);
    if (delay !== null) {
      await tx.webhookDelivery.update({
        where: { id: d.id },
        data: { ...base, status: 'pending', nextAttemptAt: new Date(Date.now() + delay) },
      });
      return { next: 'retry', delayMs: delay };
    }
    await tx.webhookDelivery.update({ where: { id: d.id }, data: { ...base, status: 'failed', nextAttemptAt: null } });
    const what =
      r.error && r.error !== 'http_error'
        ? `${r.error}${r.responseStatus ? ` (HTTP ${r.responseStatus})` : ''}`
        : `HTTP ${r.responseStatus}`;
    const disabled = await disableEndpointTx(tx, {
      endpointId: d.endpointId,
      reason:
        `Every delivery attempt failed for a whole retry window (${r.windowLabel}) with no successful delivery since ` +
        `${d.windowStartedAt.toISOString()}; last: delivery ${d.id}, attempt ${number}, ${what}`,
      byDeliveryId: d.id,
      onlyIfNoSuccessSince: d.windowStartedAt,
    });
    return { next: 'done', status: 'failed', endpointId: d.endpointId, endpointDisabled: disabled };
  });
}

/**
 * The common case in one statement: the first record of a successful attempt of the delivery's
 * current generation while it is pending. It logs the attempt, marks the delivery succeeded and
 * moves the endpoint's last success, as recordAttempt's transaction would; null in any other case
 * (already recorded, superseded, stopped), which the transaction then works out. A concurrent
 * record of the same attempt waits for the delivery's row lock, then finds it no longer pending.
 */
async function recordSuccess(db: SqlSource, r: AttemptResult): Promise<AttemptDecision | null> {
  const startedAt = new Date(r.startedAt);
  const finishedAt = new Date(startedAt.getTime() + r.durationMs);
  const [row] = await rowsOf<{ endpointId: string }>(
    db,
    Prisma.sql`
    WITH d AS (
      UPDATE webhook_deliveries
         SET attempt_count = attempt_count + 1, last_attempt_at = ${startedAt}::timestamptz,
             last_response_status = ${r.responseStatus}, status = 'succeeded', next_attempt_at = NULL
       WHERE id = ${r.deliveryId} AND generation = ${r.generation} AND status = 'pending'
         AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts WHERE attempt_key = ${r.attemptKey})
      RETURNING id, endpoint_id, attempt_count),
    logged AS (
      INSERT INTO webhook_delivery_attempts
             (delivery_id, number, attempt_key, started_at, duration_ms, response_status, response_body_excerpt, error)
      SELECT id, attempt_count, ${r.attemptKey}::text, ${startedAt}::timestamptz, ${Math.max(0, Math.round(r.durationMs))}::int,
             ${r.responseStatus}::int, ${r.responseBodyExcerpt}::text, NULL
        FROM d),
    succeeded_at AS (
      UPDATE webhook_endpoints e
         SET last_success_at = GREATEST(COALESCE(e.last_success_at, ${finishedAt}::timestamptz), ${finishedAt}::timestamptz)
        FROM d WHERE e.id = d.endpoint_id)
    SELECT endpoint_id AS "endpointId" FROM d`,
  );
  return row ? { next: 'done', status: 'succeeded', endpointId: row.endpointId, endpointDisabled: false } : null;
}

/** The mail to the workspace's administrators when an endpoint was disabled automatically. */
export async function endpointDisabledNotice(
  db: Db,
  args: { endpointId: string; baseUrl?: string },
): Promise<{ to: string[]; subject: string; text: string } | null> {
  const e = await db.webhookEndpoint.findUnique({ where: { id: args.endpointId } });
  if (!e || e.status !== 'disabled') return null;
  const ws = await db.workspace.findUnique({ where: { id: e.workspaceId } });
  if (!ws) return null;
  const api = args.baseUrl ? `${args.baseUrl}/api/v1` : '/api/v1';
  return {
    to: ws.adminEmails,
    subject: `Webhook endpoint disabled: ${e.url}`.slice(0, 200),
    text: [
      `A webhook endpoint of your workspace "${ws.name}" (${ws.id}) has been disabled and receives no more events.`,
      '',
      `Endpoint: ${e.id}`,
      `URL:      ${e.url}`,
      `Reason:   ${e.disabledReason ?? 'unknown'}`,
      `Disabled: ${iso(e.disabledAt) ?? ''}`,
      '',
      'Its pending deliveries have been stopped. The delivery log shows every attempt:',
      `  GET ${api}/webhook-endpoints/${e.id}/deliveries`,
      '',
      'Once the receiver works again, re-enable the endpoint to resume delivery of new events:',
      `  PATCH ${api}/webhook-endpoints/${e.id}  {"enabled": true}`,
      'and, if needed, send failed deliveries again:',
      `  POST ${api}/webhook-endpoints/${e.id}/deliveries/{delivery_id}/retry`,
    ].join('\n'),
  };
}
