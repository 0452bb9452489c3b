import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { PageQuery } from './common';
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

/** The document helpers of openapi.ts (security, shared error answers, Request-Id). */
export interface OpenApiHelpers {
  op(o: ZodOpenApiOperationObject & { scope?: string }): ZodOpenApiOperationObject;
  ok(schema: z.ZodType, description: string): ZodOpenApiResponseObject;
  problem(description: string): ZodOpenApiResponseObject;
}

/** `/api/v1/webhook-endpoints…` (API.md §7). */
export function webhookEndpointPaths({ op, ok, problem }: OpenApiHelpers): ZodOpenApiPathsObject {
  const notFound = problem('No such endpoint in this workspace (endpoint_not_found).');
  const json = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
  return {
    '/api/v1/webhook-endpoints': {
      post: op({
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description: 'Answers with the endpoint and its signing `secret`, which is shown only here and on rotation.',
        scope: 'webhooks:write',
        requestBody: json(CreateEndpointBody),
        responses: {
          '201': ok(CreatedWebhookEndpoint, 'The endpoint, with its secret.'),
          '400': problem('Malformed JSON.'),
          '415': problem('Body is not application/json.'),
          '422': problem('Validation failed (validation_failed), or the URL is not https or targets a refused address (url_not_allowed).'),
        },
      }),
      get: op({
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        scope: 'webhooks:read',
        requestParams: { query: PageQuery },
        responses: { '200': ok(WebhookEndpointList, 'A page of endpoints, newest first.'), '400': problem('Bad query parameters.') },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}': {
      get: op({
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        scope: 'webhooks:read',
        requestParams: { path: EndpointIdParams },
        responses: { '200': ok(WebhookEndpoint, 'The endpoint.'), '404': notFound },
      }),
      patch: op({
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint (url, event_types, description, enabled)',
        description: '`enabled: true` re-enables a disabled endpoint: delivery of new events resumes.',
        scope: 'webhooks:write',
        requestParams: { path: EndpointIdParams },
        requestBody: json(UpdateEndpointBody),
        responses: {
          '200': ok(WebhookEndpoint, 'The endpoint as updated.'),
          '400': problem('Malformed JSON.'),
          '404': notFound,
          '415': problem('Body is not application/json.'),
          '422': problem('Validation failed, or url_not_allowed.'),
        },
      }),
      delete: op({
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint and its delivery log',
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
        scope: 'webhooks:write',
        requestParams: { path: EndpointIdParams },
        responses: { '200': ok(RotatedSecret, 'The new secret.'), '404': notFound },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/deliveries': {
      get: op({
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of an endpoint',
        scope: 'webhooks:read',
        requestParams: { path: EndpointIdParams, query: ListDeliveriesQuery },
        responses: {
          '200': ok(DeliveryList, 'A page of deliveries, newest first.'),
          '400': problem('Bad query parameters.'),
          '404': notFound,
        },
      }),
    },
    '/api/v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}': {
      get: op({
        operationId: 'getWebhookDelivery',
        summary: 'One delivery with every attempt',
        scope: 'webhooks:read',
        requestParams: { path: DeliveryIdParams },
        responses: {
          '200': ok(DeliveryWithAttempts, 'The delivery and its attempts, oldest first.'),
          '404': problem('No such endpoint or delivery.'),
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
        scope: 'webhooks:write',
        requestParams: { path: DeliveryIdParams },
        responses: {
          '202': ok(Delivery, 'Accepted: the delivery, pending again.'),
          '404': problem('No such endpoint or delivery.'),
          '409': problem('The endpoint is disabled (conflict): re-enable it first.'),
        },
      }),
    },
  };
}

/** The OpenAPI 3.1 `webhooks` section: one entry per event kind, as received by an endpoint. */
export function webhookEventsDocument(): ZodOpenApiPathsObject {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `event_${type.replace('.', '_')}`,
          summary: `${type} — sent to endpoints subscribed to it`,
          description:
            'POSTed to the endpoint URL with `Content-Type: application/json` and a `User-Agent: Svc-Webhooks/1.0`. Success is a 2xx ' +
            'within 15 s; redirects are not followed; failures are retried with jittered backoff for about 24 h (5 s, 5 min, 30 min, ' +
            '2 h, 5 h, 10 h, then to 24 h); Retry-After on 429/503 is honoured (up to 6 h); 410 disables the endpoint. Order is not ' +
            'guaranteed and duplicates can occur: dedupe on the event id.',
          requestParams: { header: DeliveryHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: EventPayload } } },
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
