import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import type { Db, SqlSource } from '@svc/db';
import {
  endpointDisabledNotice,
  parseRetryAfter,
  prepareAttempt,
  recordAttempt,
  RESPONSE_EXCERPT_BYTES,
  responseExcerpt,
  stopDelivery as stopDeliveryRow,
  toHttpRequestError,
} from '@svc/domain';
import type { AttemptDecision, AttemptErrorClass, Mailer, PreparedAttempt } from '@svc/domain';
import type { SecretBox } from '@svc/signing';
import { signStandardWebhook, signWebhook } from '@svc/signing';
import type { DeliveryStarter } from '../client/deliveryStarter';
import { ATTEMPT_NOT_RECORDED } from '../shared/deliveryTypes';
import type { AttemptEntry, AttemptOutcome, AttemptStep, RecordAttemptInput } from '../shared/deliveryTypes';
import type { SvcMetrics } from './metrics';
import { WorkspaceGate } from './workspaceGate';

export const WEBHOOK_USER_AGENT = 'Svc-Webhooks/1.0';

/** What outbound webhook delivery needs at run time (built from config by createWebhookRuntime). */
export interface WebhookRuntime {
  /** SSRF-guarded dispatcher: every resolved address checked at connect time; trusts OUTBOUND_CA_FILE too. */
  dispatcher: Dispatcher;
  mailer: Mailer;
  /** Starts delivery workflows (client + task queue + schedule). */
  starter: DeliveryStarter;
  /** WEBHOOK_TIMEOUT_MS (15 s). */
  timeoutMs: number;
  /** WEBHOOK_RETRY_AFTER_MAX_MS. */
  retryAfterMaxMs: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE: attempts one workspace may have in flight in this process. */
  maxInFlightPerWorkspace: number;
  /** Public base URL, for links in notification mail. */
  baseUrl?: string;
}

export interface DeliveryActivityDeps {
  prisma: Db;
  /** Named statements on the same pool: an attempt's reads, and a success's record. */
  sql: SqlSource;
  secretBox: SecretBox;
  webhooks: WebhookRuntime;
  metrics: SvcMetrics;
}

interface PostResult {
  status: number;
  excerpt: string;
  error: AttemptErrorClass | null;
  retryAfterMs: number | null;
}

const ERROR_CLASS: Record<string, AttemptErrorClass> = {
  timeout: 'timeout',
  dns: 'dns',
  connection: 'connection',
  tls: 'tls',
  blocked_address: 'blocked_address',
  invalid_url: 'invalid_url',
};

/**
 * One POST: no redirect followed, the whole exchange (connect, TLS, headers and up to 4 KB of
 * body) within `timeoutMs`. Never throws: every failure is an error class.
 */
async function post(
  dispatcher: Dispatcher,
  args: { url: string; headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<PostResult> {
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    return { status: 0, excerpt: '', error: 'invalid_url', retryAfterMs: null };
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('webhook attempt timed out'));
  }, args.timeoutMs);
  let status = 0;
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: args.headers,
      body: args.body,
      signal: controller.signal,
      headersTimeout: args.timeoutMs,
      bodyTimeout: args.timeoutMs,
    });
    status = res.statusCode;
    const retryAfter = res.headers['retry-after'];
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        chunks.push(buf);
        size += buf.length;
        if (size >= RESPONSE_EXCERPT_BYTES) break; // the rest is never read (the socket is closed)
      }
    } catch {
      // The status arrived in time; a body cut off by the deadline is only a shorter excerpt.
    }
    if (!res.body.destroyed) {
      res.body.on('error', () => {});
      res.body.destroy();
    }
    const error: AttemptErrorClass | null =
      status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'http_error';
    return {
      status,
      excerpt: responseExcerpt(Buffer.concat(chunks)),
      error,
      retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    };
  } catch (err) {
    const e = toHttpRequestError(err, url, timedOut, args.timeoutMs);
    return { status, excerpt: '', error: ERROR_CLASS[e.kind] ?? 'internal', retryAfterMs: null };
  } finally {
    clearTimeout(timer);
  }
}

/** Activities of the delivery workflow. Secrets stay in here: never in Temporal history. */
export function createDeliveryActivities(deps: DeliveryActivityDeps) {
  const { webhooks } = deps;
  // As many attempts may wait (2 s at most) as may be in flight: a burst of one workspace's
  // deliveries is sent in order rather than sent back to sleep.
  const gate = new WorkspaceGate({ inFlight: webhooks.maxInFlightPerWorkspace, waiting: webhooks.maxInFlightPerWorkspace, waitMs: 2_000 });

  /**
   * One attempt: checks the delivery is still due and its endpoint enabled, signs with a fresh
   * timestamp (`Svc-Signature` and Standard Webhooks, the same instant), POSTs.
   */
  async function attempt(args: { deliveryId: string; generation: number }): Promise<AttemptOutcome> {
    const prepared = await prepareAttempt(deps.sql, deps.secretBox, args);
    if (prepared.kind === 'skip') return prepared;
    return (await gate.run(prepared.workspaceId, () => send(args, prepared))) ?? { kind: 'busy' };
  }

  /** The POST of a prepared attempt, signed with a fresh timestamp. */
  async function send(
    args: { deliveryId: string; generation: number },
    prepared: Extract<PreparedAttempt, { kind: 'send' }>,
  ): Promise<AttemptOutcome> {
    const started = Date.now();
    const timestamp = Math.floor(started / 1000);
    const result = await post(webhooks.dispatcher, {
      url: prepared.url,
      body: prepared.body,
      timeoutMs: webhooks.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'svc-signature': signWebhook({ secrets: prepared.secrets, timestamp, body: prepared.body }),
        'svc-event-id': prepared.eventId,
        'svc-event-type': prepared.eventType,
        'svc-delivery-id': args.deliveryId,
        'svc-delivery-attempt': String(prepared.attemptNumber),
        'webhook-id': prepared.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signStandardWebhook({ secrets: prepared.secrets, id: prepared.eventId, timestamp, body: prepared.body }),
      },
    });
    const durationMs = Date.now() - started;
    deps.metrics.deliveryAttempted(result.error ?? 'succeeded');
    if (result.error) {
      log.info('webhook attempt failed', {
        deliveryId: args.deliveryId,
        attempt: prepared.attemptNumber,
        status: result.status,
        error: result.error,
        host: new URL(prepared.url).host,
      });
    }
    return {
      kind: 'attempted',
      startedAt: new Date(started).toISOString(),
      durationMs,
      responseStatus: result.status,
      responseBodyExcerpt: result.excerpt,
      error: result.error,
      retryAfterMs: result.retryAfterMs,
    };
  }

  /** Writes the attempt to the delivery log and decides what follows (idempotent by attempt key). */
  function record(input: RecordAttemptInput): Promise<AttemptDecision> {
    return recordAttempt(deps, {
      deliveryId: input.deliveryId,
      generation: input.generation,
      attemptKey: input.attemptKey,
      startedAt: input.outcome.startedAt,
      durationMs: input.outcome.durationMs,
      responseStatus: input.outcome.responseStatus,
      responseBodyExcerpt: input.outcome.responseBodyExcerpt,
      error: input.outcome.error,
      retryAfterMs: input.outcome.retryAfterMs,
      plannedDelayMs: input.plannedDelayMs,
      retryAfterMaxMs: webhooks.retryAfterMaxMs,
      windowLabel: formatWindow(input.windowMs),
    });
  }

  return {
    /**
     * One attempt and its log entry. Registered with no Temporal retries:
     * the workflow owns the schedule. When the request was made but the log could not be
     * written, the failure carries the attempt's outcome, for the workflow to write it.
     */
    async deliverAttempt(entry: AttemptEntry): Promise<AttemptStep> {
      const outcome = await attempt(entry);
      if (outcome.kind !== 'attempted') return outcome;
      try {
        return { kind: 'recorded', decision: await record({ ...entry, outcome }) };
      } catch {
        throw ApplicationFailure.create({
          type: ATTEMPT_NOT_RECORDED,
          message: 'The attempt could not be written to the delivery log',
          nonRetryable: true,
          details: [outcome],
        });
      }
    },

    /** Writes an attempt to the delivery log, when deliverAttempt could not. */
    recordDeliveryAttempt: record,

    async stopDelivery(args: { deliveryId: string; generation: number }): Promise<void> {
      await stopDeliveryRow(deps.prisma, args);
    },

    /** Emails the workspace's administrators that an endpoint was disabled automatically. */
    async notifyEndpointDisabled(args: { endpointId: string }): Promise<{ sent: boolean }> {
      const notice = await endpointDisabledNotice(deps.prisma, { endpointId: args.endpointId, baseUrl: webhooks.baseUrl });
      if (!notice) return { sent: false };
      if (notice.to.length === 0) {
        log.warn('webhook endpoint disabled; the workspace has no administrator email to notify', { endpointId: args.endpointId });
        return { sent: false };
      }
      await webhooks.mailer.send(notice);
      return { sent: true };
    },
  };
}

/** 86_400_000 → "24 h", 1_500 → "1.5 s". */
export function formatWindow(ms: number): string {
  if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
  if (ms >= 60_000) return `${Math.round(ms / 6_000) / 10} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
