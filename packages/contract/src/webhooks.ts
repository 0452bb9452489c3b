import { z } from 'zod';
import { Count, DurationMs, idParam, jsonValue, PageQuery, pageOf, ResponseStatus, StorableString, Timestamp } from './common';

/** Event kinds. */
export const WEBHOOK_EVENT_TYPES = [
  'run.succeeded',
  'run.failed',
  'run.cancelled',
  'run.waiting_for_review',
  'review.decided',
  'workflow.updated',
] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const EventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'EventType' });

export const EndpointIdParams = z.object({ endpoint_id: idParam('we', 'we_0123456789abcdefghijklmn') });
export const DeliveryIdParams = EndpointIdParams.extend({ delivery_id: idParam('dlv', 'dlv_0123456789abcdefghijklmn') });

const url = z
  .string()
  .min(1)
  .max(2048)
  .meta({
    description:
      'https only. Literal loopback, private, link-local, CGNAT, metadata, multicast and reserved addresses are refused (422 ' +
      'url_not_allowed); host names are checked on every resolved address when connecting.',
    example: 'https://hooks.example.com/svc',
  });
const eventTypes = z
  .array(EventTypeSchema)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .meta({ description: 'The event kinds sent to this endpoint (at least one).' });
const description = StorableString.max(500);

export const CreateEndpointBody = z
  .strictObject({
    url,
    event_types: eventTypes,
    description: description.optional(),
    enabled: z.boolean().optional().meta({ description: 'Default true.' }),
  })
  .meta({ id: 'CreateWebhookEndpointRequest' });

export const UpdateEndpointBody = z
  .strictObject({
    url: url.optional(),
    event_types: eventTypes.optional(),
    description: description.optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'true re-enables a disabled endpoint (clears disabled_reason); false disables it.' }),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest' });

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    event_types: z.array(EventTypeSchema),
    description: z.string(),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why it is disabled (410 Gone, a whole retry window of failures, the API).' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

const secret = z.string().meta({
  description: 'The signing secret (`whsec_…`), shown only here: use the string as written (its UTF-8 bytes) as the HMAC key.',
  example: 'whsec_q3v8Yb1c0zT6mEwQWc2X0s9F3c9C2YwqvV8dQ0hXb2M',
});

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({ secret }).meta({ id: 'CreatedWebhookEndpoint' });
export const WebhookEndpointList = pageOf(WebhookEndpoint, 'WebhookEndpointList');

export const RotatedSecret = z
  .object({
    secret,
    previous_secret_expires_at: Timestamp.meta({ description: 'Until then the old secret keeps signing too (a second v1=).' }),
  })
  .meta({ id: 'RotatedWebhookSecret' });

export const ListDeliveriesQuery = PageQuery.extend({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
  event_type: EventTypeSchema.optional(),
});

export const Delivery = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: EventTypeSchema,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempt_count: Count,
    next_attempt_at: Timestamp.nullable(),
    last_attempt_at: Timestamp.nullable(),
    last_response_status: ResponseStatus.nullable().meta({
      description: 'The status of the last attempt (0 = no response); null before one.',
    }),
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryAttempt = z
  .object({
    number: Count.min(1).meta({ description: '1 for the first attempt, then 2, 3…' }),
    started_at: Timestamp,
    duration_ms: DurationMs,
    response_status: ResponseStatus,
    response_body_excerpt: z.string().meta({ description: 'At most 4 KB of the response body.' }),
    error: z
      .enum(['timeout', 'dns', 'connection', 'tls', 'blocked_address', 'redirect', 'http_error', 'invalid_url', 'internal'])
      .nullable()
      .meta({
        description:
          'Why the attempt failed: timeout (15 s), dns, connection, tls, blocked_address (the host resolved to a refused ' +
          'address), redirect (3xx, never followed), http_error (another non-2xx), internal; null on success.',
      }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const DeliveryWithAttempts = Delivery.extend({ endpoint_id: z.string(), attempts: z.array(DeliveryAttempt) }).meta({
  id: 'WebhookDeliveryWithAttempts',
});
export const DeliveryList = pageOf(Delivery, 'WebhookDeliveryList');

/** The body of every delivery. */
export const EventPayload = z
  .object({
    id: z.string().meta({ description: 'evt_…: the same on every attempt; dedupe on it.', example: 'evt_0123456789abcdefghijklmn' }),
    type: EventTypeSchema,
    created_at: Timestamp,
    workspace_id: z.string(),
    data: jsonValue(
      'run.*: the run with its steps (secrets removed); review.decided: the review with its run_id; workflow.updated: the workflow. ' +
        'A body is at most 256 KiB: a run whose body would be larger is sent with `truncated: true` and its input, output, step ' +
        'outputs and review data as null (read the run by id); the key is absent otherwise.',
    ),
  })
  .meta({ id: 'WebhookEvent' });

export const DeliveryHeaders = z.object({
  'Svc-Signature': z.string().meta({
    description:
      '`t=<unix seconds>,v1=<hex>[,v1=<hex>]`: lowercase hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint secret; one ' +
      'v1 per valid secret during a rotation overlap, newest first. Refuse t older than 5 minutes; compare in constant time.',
    example: 't=1767225600,v1=5f0c3f…',
  }),
  'Svc-Event-Id': z.string().meta({ description: 'The event id (dedupe key).' }),
  'Svc-Event-Type': EventTypeSchema,
  'Svc-Delivery-Id': z.string().meta({ description: 'dlv_…: one per (event, endpoint).' }),
  'Svc-Delivery-Attempt': z.string().meta({ description: '1 for the first attempt, then 2, 3…', example: '1' }),
  // Standard Webhooks (standardwebhooks.com): the official libraries verify these with the endpoint's secret.
  'webhook-id': z
    .string()
    .meta({ description: 'Standard Webhooks: the event id, as `Svc-Event-Id`.', example: 'evt_0123456789abcdefghijklmn' }),
  'webhook-timestamp': z.string().meta({
    description: "Standard Webhooks: unix seconds of this attempt (the same instant as `Svc-Signature`'s t).",
    example: '1767225600',
  }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,<base64>` HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>"; during a rotation overlap ' +
      'one per valid secret, space-separated, newest first. Verify with an official Standard Webhooks library and the secret as shown.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});
