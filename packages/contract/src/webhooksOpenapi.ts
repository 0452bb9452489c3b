import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { PageQuery } from './common';
import {
  exampleCreatedEndpoint,
  exampleCreateEndpoint,
  exampleDeliveryList,
  exampleDeliveryWithAttempts,
  exampleEndpoint,
  exampleEndpointList,
  exampleEvent,
  exampleRetriedDelivery,
  exampleRotatedSecret,
  exampleUpdateEndpoint,
} from './examples';
import type { OpenApiHelpers } from './openapiHelpers';
import {
  CreatedWebhookEndpoint,
  CreateEndpointBody,
  DeliveryHeaders,
  DeliveryIdParams,
  DeliveryList,
  DeliveryWithAttempts,
  Delivery,
  EndpointIdParams,
  EventPayload,
  ListDeliveriesQuery,
  RotatedSecret,
  UpdateEndpointBody,
  WEBHOOK_EVENT_TYPES,
  WebhookEndpoint,
  WebhookEndpointList,
} from './webhooks';

/** `/api/v1/webhook-endpoints…`. */
export function webhookEndpointPaths({ op, ok, problem, json }: OpenApiHelpers): ZodOpenApiPathsObject {
  const notFound = problem(['endpoint_not_found'], 'No such endpoint in this workspace (endpoint_not_found).');
  const tags = ['Webhook endpoints'];
  const bodyErrors = {
    '400': problem(['invalid_json'], 'Malformed JSON (invalid_json).'),
    '413': problem(['payload_too_large'], 'The body is too large (payload_too_large).'),
    '415': problem(['unsupported_media_type'], 'Body is not application/json (unsupported_media_type).'),
  };
  const noBody = problem(['validation_failed'], 'A body other than nothing or `{}` (validation_failed).');
  const endpointLinks = Object.fromEntries(
    (
      [
        ['GetEndpoint', 'getWebhookEndpoint', 'Read the endpoint.'],
        ['UpdateEndpoint', 'updateWebhookEndpoint', 'Update the endpoint.'],
        ['DeleteEndpoint', 'deleteWebhookEndpoint', 'Delete the endpoint.'],
        ['RotateSecret', 'rotateWebhookEndpointSecret', 'Rotate its signing secret.'],
        ['ListDeliveries', 'listWebhookDeliveries', 'Its delivery log.'],
      ] as const
    ).map(([name, operationId, description]) => [name, { operationId, parameters: { endpoint_id: '$response.body#/id' }, description }]),
  );
  return {
    '/api/v1/webhook-endpoints': {
      post: op({
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description: 'Answers with the endpoint and its signing `secret`, which is shown only here and on rotation.',
        tags,
        scope: 'webhooks:write',
        requestBody: json(CreateEndpointBody, exampleCreateEndpoint),
        responses: {
          '201': {
            ...ok(CreatedWebhookEndpoint, 'The endpoint, with its secret.', exampleCreatedEndpoint),
            headers: {
              Location: {
                required: true,
                schema: { type: 'string' },
                description: '`/api/v1/webhook-endpoints/{id}`',
                example: '/api/v1/webhook-endpoints/we_0123456789abcdefghijklmn',
              },
            },
            links: endpointLinks,
          },
          ...bodyErrors,
          '422': problem(
            ['validation_failed', 'url_not_allowed', 'limit_exceeded'],
            'Validation failed (validation_failed), the URL is not https or targets a refused address (url_not_allowed), or the ' +
              'workspace already holds its cap of webhook endpoints (limit_exceeded: `limit` names the cap, `limit_value` its ' +
              'figure; nothing is created).',
          ),
        },
      }),
      get: op({
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        tags,
        scope: 'webhooks:read',
        requestParams: { query: PageQuery },
        responses: {
          '200': {
            ...ok(WebhookEndpointList, 'A page of endpoints, newest first.', exampleEndpointList),
            links: {
              GetFirstEndpoint: {
                operationId: 'getWebhookEndpoint',
                parameters: { endpoint_id: '$response.body#/data/0/id' },
                description: 'Read the first endpoint of the page.',
              },
              ListFirstEndpointDeliveries: {
                operationId: 'listWebhookDeliveries',
                parameters: { endpoint_id: '$response.body#/data/0/id' },
                description: 'The delivery log of the first endpoint of the page.',
              },
            },
          },
          '400': problem(['invalid_request'], 'Bad query parameters (invalid_request).'),
        },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}': {
      get: op({
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        tags,
        scope: 'webhooks:read',
        requestParams: { path: EndpointIdParams },
        responses: { '200': ok(WebhookEndpoint, 'The endpoint.', exampleEndpoint), '404': notFound },
      }),
      patch: op({
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint (url, event_types, description, enabled)',
        description: '`enabled: true` re-enables a disabled endpoint: delivery of new events resumes.',
        tags,
        scope: 'webhooks:write',
        requestParams: { path: EndpointIdParams },
        requestBody: json(UpdateEndpointBody, exampleUpdateEndpoint),
        responses: {
          '200': ok(WebhookEndpoint, 'The endpoint as updated.', exampleEndpoint),
          ...bodyErrors,
          '404': notFound,
          '422': problem(
            ['validation_failed', 'url_not_allowed'],
            'Validation failed (validation_failed), or the URL is refused (url_not_allowed).',
          ),
        },
      }),
      delete: op({
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint and its delivery log',
        tags,
        scope: 'webhooks:write',
        requestParams: { path: EndpointIdParams },
        responses: { '204': { description: 'Deleted; pending deliveries end without sending.' }, '404': notFound },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/rotate-secret': {
      post: op({
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret',
        description:
          'A new secret signs from now on; the previous one keeps signing for 24 h (`previous_secret_expires_at`), so ' +
          'deliveries carry two `v1=` signatures, newest first. No request body.',
        tags,
        scope: 'webhooks:write',
        requestParams: { path: EndpointIdParams },
        responses: {
          '200': ok(RotatedSecret, 'The new secret.', exampleRotatedSecret),
          ...bodyErrors,
          '404': notFound,
          '422': noBody,
        },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/deliveries': {
      get: op({
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of an endpoint',
        tags,
        scope: 'webhooks:read',
        requestParams: { path: EndpointIdParams, query: ListDeliveriesQuery },
        responses: {
          '200': {
            ...ok(DeliveryList, 'A page of deliveries, newest first.', exampleDeliveryList),
            links: {
              GetFirstDelivery: {
                operationId: 'getWebhookDelivery',
                parameters: { endpoint_id: '$request.path.endpoint_id', delivery_id: '$response.body#/data/0/id' },
                description: 'The first delivery of the page, with its attempts.',
              },
              RetryFirstDelivery: {
                operationId: 'retryWebhookDelivery',
                parameters: { endpoint_id: '$request.path.endpoint_id', delivery_id: '$response.body#/data/0/id' },
                description: 'Send the first delivery of the page again.',
              },
            },
          },
          '400': problem(['invalid_request'], 'Bad query parameters (invalid_request).'),
          '404': notFound,
        },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}': {
      get: op({
        operationId: 'getWebhookDelivery',
        summary: 'One delivery with every attempt',
        tags,
        scope: 'webhooks:read',
        requestParams: { path: DeliveryIdParams },
        responses: {
          '200': ok(DeliveryWithAttempts, 'The delivery and its attempts, oldest first.', exampleDeliveryWithAttempts),
          '404': problem(['endpoint_not_found', 'not_found'], 'No such endpoint (endpoint_not_found) or delivery (not_found).'),
        },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry': {
      post: op({
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery again',
        description:
          'Starts a new attempt sequence over the whole retry schedule, beginning within about a second; an earlier sequence still ' +
          'running for this delivery is superseded. No request body.',
        tags,
        scope: 'webhooks:write',
        requestParams: { path: DeliveryIdParams },
        responses: {
          '202': ok(Delivery, 'Accepted: the delivery, pending again.', exampleRetriedDelivery),
          ...bodyErrors,
          '404': problem(['endpoint_not_found', 'not_found'], 'No such endpoint (endpoint_not_found) or delivery (not_found).'),
          '409': problem(['conflict'], 'The endpoint is disabled (conflict): re-enable it first.'),
          '422': noBody,
        },
      }),
    },
  };
}

/** `run.waiting_for_review` → `onRunWaitingForReview`: what a receiver's handler of that event is called. */
function eventOperationId(type: string): string {
  return (
    'on' +
    type
      .split(/[._]/)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')
  );
}

/** The OpenAPI 3.1 `webhooks` section: one entry per event kind, as received by an endpoint. */
export function webhookEventsDocument(): ZodOpenApiPathsObject {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: eventOperationId(type),
          tags: ['Events'],
          // The receiver authenticates a delivery by its Svc-Signature header, not by an HTTP security scheme.
          security: [],
          summary: `${type} — sent to endpoints subscribed to it`,
          description:
            'POSTed to the endpoint URL with `Content-Type: application/json` and a `User-Agent: Svc-Webhooks/1.0`. Success is a 2xx ' +
            'within 15 s; redirects are not followed; failures are retried with jittered backoff for about 24 h (5 s, 5 min, 30 min, ' +
            '2 h, 5 h, 10 h, then to 24 h); Retry-After on 429/503 is honoured (up to 6 h); 410 disables the endpoint. Order is not ' +
            'guaranteed and duplicates can occur: dedupe on the event id.',
          requestParams: { header: DeliveryHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: EventPayload, example: exampleEvent(type) } } },
          responses: {
            '2XX': { description: 'Received.' },
            '410': { description: 'Gone: the endpoint is disabled at once and receives nothing more.' },
            default: { description: 'Any other answer (or none within 15 s) is a failed attempt, retried.' },
          },
        },
      },
    ]),
  );
}
