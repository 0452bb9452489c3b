import type { Db, Prisma } from '@svc/db';
import { newWebhookSecret } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import { AppError } from '../errors';
import { EVENT_TYPES } from '../events/events';
import type { EventType } from '../events/events';
import { newId } from '../ids';
import { decodeCursor, toPage } from '../shared/pagination';
import { rotateSecret, secretsInForce } from '../shared/secretRotation';
import type { Page } from '../shared/pagination';
import { iso } from '../shared/time';
import { sealedContext } from '../secrets/contexts';
import { limitExceeded } from '../workspaces/caps';
import { lockWorkspaceCaps } from '../workspaces/lockCaps';
import { checkEndpointUrl } from './urlRules';
import type { EndpointUrlPolicy } from './urlRules';

export type WebhookTx = Prisma.TransactionClient;

/** The endpoint as the API shows it. The secret is never part of it. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  event_types: EventType[];
  description: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string | null;
  updated_at: string | null;
}

type EndpointRow = Awaited<ReturnType<Db['webhookEndpoint']['findUniqueOrThrow']>>;

export function toEndpointView(e: EndpointRow): WebhookEndpointView {
  return {
    id: e.id,
    url: e.url,
    event_types: e.eventTypes as EventType[],
    description: e.description,
    status: e.status as 'enabled' | 'disabled',
    disabled_reason: e.disabledReason,
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
  };
}

/** What endpoint use cases need besides the database. */
export interface EndpointDeps {
  prisma: Db;
  box: SecretBox;
  urls: EndpointUrlPolicy;
  /** How long the previous secret keeps signing after a rotation (24 h). */
  secretOverlapMs: number;
}

function checkEventTypes(types: string[]): EventType[] {
  const unique = [...new Set(types)];
  const unknown = unique.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length || unique.length === 0) {
    throw new AppError('validation_failed', 'The request body is not valid', {
      errors: [
        { path: 'event_types', message: unique.length ? `unknown event type(s): ${unknown.join(', ')}` : 'at least one event type' },
      ],
    });
  }
  return unique as EventType[];
}

/** An endpoint of this workspace; a foreign id is 404 exactly like a missing one. */
export async function findEndpoint(db: Db | WebhookTx, workspaceId: string | undefined, endpointId: string): Promise<EndpointRow> {
  const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, ...(workspaceId ? { workspaceId } : {}) } });
  if (!row) throw new AppError('endpoint_not_found', `Webhook endpoint ${endpointId} not found`);
  return row;
}

/** Creates an endpoint; one beyond the workspace's webhook endpoints cap is refused (422 limit_exceeded), creating nothing. */
export async function createEndpoint(
  deps: EndpointDeps,
  args: { workspaceId: string; url: string; eventTypes: string[]; description?: string; enabled?: boolean },
): Promise<WebhookEndpointView & { secret: string }> {
  const url = checkEndpointUrl(args.url, deps.urls);
  const eventTypes = checkEventTypes(args.eventTypes);
  const secret = newWebhookSecret();
  const enabled = args.enabled ?? true;
  const id = newId('we');
  const secretEnc = deps.box.seal(secret, sealedContext.endpointSigningSecret(args.workspaceId, id));
  const row = await deps.prisma.$transaction(async (tx) => {
    // Counted under the workspace's lock: concurrent creates cannot pass the cap together.
    const caps = await lockWorkspaceCaps(tx, args.workspaceId);
    const held = await tx.webhookEndpoint.count({ where: { workspaceId: args.workspaceId } });
    if (held >= caps.webhook_endpoints) throw limitExceeded('webhook_endpoints', caps.webhook_endpoints);
    return tx.webhookEndpoint.create({
      data: {
        id,
        workspaceId: args.workspaceId,
        url,
        eventTypes,
        description: args.description ?? '',
        status: enabled ? 'enabled' : 'disabled',
        disabledReason: enabled ? null : 'Created disabled',
        disabledAt: enabled ? null : new Date(),
        secretEnc,
      },
    });
  });
  return { ...toEndpointView(row), secret };
}

export async function listEndpoints(
  db: Db,
  args: { workspaceId: string; limit: number; cursor?: string },
): Promise<Page<WebhookEndpointView>> {
  const before = decodeCursor(args.cursor);
  const rows = await db.webhookEndpoint.findMany({
    where: { workspaceId: args.workspaceId, ...(before !== undefined ? { seq: { lt: before } } : {}) },
    orderBy: { seq: 'desc' },
    take: args.limit + 1,
  });
  return toPage(rows, args.limit, toEndpointView);
}

export async function getEndpoint(db: Db, args: { workspaceId?: string; endpointId: string }): Promise<WebhookEndpointView> {
  return toEndpointView(await findEndpoint(db, args.workspaceId, args.endpointId));
}

/**
 * Disables an endpoint that is enabled (atomically; false when it already was disabled) and
 * stops its pending deliveries: they are marked failed, and their workflows end without
 * sending at their next scheduled attempt.
 */
export async function disableEndpointTx(
  tx: WebhookTx,
  args: { endpointId: string; reason: string; byDeliveryId?: string; onlyIfNoSuccessSince?: Date },
): Promise<boolean> {
  const now = new Date();
  const changed = await tx.webhookEndpoint.updateMany({
    where: {
      id: args.endpointId,
      status: 'enabled',
      ...(args.onlyIfNoSuccessSince ? { OR: [{ lastSuccessAt: null }, { lastSuccessAt: { lt: args.onlyIfNoSuccessSince } }] } : {}),
    },
    data: {
      status: 'disabled',
      disabledReason: args.reason,
      disabledAt: now,
      disabledByDeliveryId: args.byDeliveryId ?? null,
      updatedAt: now,
    },
  });
  if (changed.count === 0) return false;
  await tx.webhookDelivery.updateMany({
    where: { endpointId: args.endpointId, status: 'pending' },
    data: { status: 'failed', nextAttemptAt: null },
  });
  return true;
}

/**
 * PATCH: `url`, `event_types`, `description`, `enabled`. Re-enabling clears `disabled_reason`
 * and resumes delivery of new events; disabling stops pending deliveries.
 */
export async function updateEndpoint(
  deps: Pick<EndpointDeps, 'prisma' | 'urls'>,
  args: { workspaceId?: string; endpointId: string; url?: string; eventTypes?: string[]; description?: string; enabled?: boolean },
): Promise<WebhookEndpointView> {
  const url = args.url !== undefined ? checkEndpointUrl(args.url, deps.urls) : undefined;
  const eventTypes = args.eventTypes !== undefined ? checkEventTypes(args.eventTypes) : undefined;
  return deps.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${args.endpointId} FOR UPDATE`;
    const current = await findEndpoint(tx, args.workspaceId, args.endpointId);
    const now = new Date();
    if (args.enabled === false && current.status === 'enabled') {
      await disableEndpointTx(tx, { endpointId: current.id, reason: 'Disabled through the API' });
    }
    const reenable = args.enabled === true && current.status === 'disabled';
    const row = await tx.webhookEndpoint.update({
      where: { id: current.id },
      data: {
        ...(url !== undefined ? { url } : {}),
        ...(eventTypes !== undefined ? { eventTypes } : {}),
        ...(args.description !== undefined ? { description: args.description } : {}),
        ...(reenable ? { status: 'enabled', disabledReason: null, disabledAt: null, disabledByDeliveryId: null } : {}),
        updatedAt: now,
      },
    });
    return toEndpointView(row);
  });
}

/** Deletes the endpoint with its delivery log; running delivery workflows end without sending. */
export async function deleteEndpoint(db: Db, args: { workspaceId?: string; endpointId: string }): Promise<void> {
  const row = await findEndpoint(db, args.workspaceId, args.endpointId);
  await db.webhookEndpoint.deleteMany({ where: { id: row.id } });
}

/**
 * A new secret; the current one becomes the previous one and keeps signing (as a second
 * `v1=`) until `previous_secret_expires_at`. Rotating again during an overlap drops the
 * older previous secret: at most two secrets are ever valid.
 */
export async function rotateEndpointSecret(
  deps: EndpointDeps,
  args: { workspaceId?: string; endpointId: string },
): Promise<{ secret: string; previous_secret_expires_at: string }> {
  const secret = newWebhookSecret();
  return deps.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${args.endpointId} FOR UPDATE`;
    const current = await findEndpoint(tx, args.workspaceId, args.endpointId);
    const now = new Date();
    const next = rotateSecret(deps.box, current.secretEnc, secret, {
      now,
      overlapMs: deps.secretOverlapMs,
      context: sealedContext.endpointSigningSecret(current.workspaceId, current.id),
    });
    await tx.webhookEndpoint.update({
      where: { id: current.id },
      data: {
        secretEnc: next.currentEnc,
        previousSecretEnc: next.previousEnc,
        previousSecretExpiresAt: next.previousExpiresAt,
        updatedAt: now,
      },
    });
    return { secret, previous_secret_expires_at: next.previousExpiresAt.toISOString() };
  });
}

/** The secrets that sign now, newest first (the previous one only while its overlap lasts). */
export function signingSecrets(
  box: SecretBox,
  e: Pick<EndpointRow, 'id' | 'workspaceId' | 'secretEnc' | 'previousSecretEnc' | 'previousSecretExpiresAt'>,
  now = new Date(),
): string[] {
  return secretsInForce(
    box,
    { currentEnc: e.secretEnc, previousEnc: e.previousSecretEnc, previousExpiresAt: e.previousSecretExpiresAt },
    sealedContext.endpointSigningSecret(e.workspaceId, e.id),
    now,
  );
}
