import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { PageQuery, Problem } from './common';
import { ListRunsQuery, Run, RunIdParams, RunList, StartRunBody } from './runs';
import { Workflow, WorkflowIdParams, WorkflowList } from './workflows';
import { HookAccepted, HookHeaders, HookPayload, TriggerIdParams } from './hooks';
import { webhookEndpointPaths, webhookEventsDocument } from './webhooksOpenapi';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });

const requestIdHeader = {
  'Request-Id': { description: 'Identifies the request; also in problem bodies and logs.', schema: { type: 'string' as const } },
};

/** Answers every authenticated route can give. */
const authErrors: ZodOpenApiResponsesObject = {
  '401': problem('Missing, malformed, unknown, revoked or expired API key.'),
  '403': problem('The key lacks the scope, or the request came from a browser.'),
  '429': problem(
    "Rate limited (rate_limited): over the key's or the workspace's figure for this minute, or too many unauthenticated requests from this address. See Retry-After.",
  ),
  '500': problem('Internal error.'),
  '503': problem('A dependency is unavailable; retry.'),
};

function op(o: ZodOpenApiOperationObject & { scope?: string }): ZodOpenApiOperationObject {
  const { scope, ...rest } = o;
  return {
    ...rest,
    ...(scope ? { security: [{ bearerAuth: [scope] }], 'x-required-scope': scope } : { security: [] }),
    responses: { ...rest.responses, ...(scope ? authErrors : {}) },
  };
}

const ok = (schema: z.ZodType, description: string) => ({
  description,
  headers: requestIdHeader,
  content: { 'application/json': { schema } },
});

export function buildOpenApiDocument(opts: { serverUrl?: string } = {}): oas31.OpenAPIObject {
  return withRateLimitHeaders(buildDocument(opts));
}

function buildDocument(opts: { serverUrl?: string }): oas31.OpenAPIObject {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'svc — Workflow Run API',
      version: '1.0.0',
      description: 'Start workflow runs, read their steps, wait for results. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: opts.serverUrl ?? 'http://localhost:8080' }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key `svc_…`; each operation names the scope it needs.' },
      },
    },
    paths: {
      '/api/v1/workflows': {
        get: op({
          operationId: 'listWorkflows',
          summary: 'List workflows',
          scope: 'workflows:read',
          requestParams: { query: PageQuery },
          responses: { '200': ok(WorkflowList, 'A page of workflows, newest first.'), '400': problem('Bad query parameters.') },
        }),
      },
      '/api/v1/workflows/{workflow_id}': {
        get: op({
          operationId: 'getWorkflow',
          summary: 'Get a workflow',
          scope: 'workflows:read',
          requestParams: { path: WorkflowIdParams },
          responses: { '200': ok(Workflow, 'The workflow.'), '404': problem('No such workflow in this workspace.') },
        }),
      },
      '/api/v1/workflows/{workflow_id}/runs': {
        post: op({
          operationId: 'startRun',
          summary: 'Start a run',
          scope: 'runs:write',
          requestParams: {
            path: WorkflowIdParams,
            header: z.object({
              'Idempotency-Key': z
                .string()
                .min(1)
                .max(257)
                .optional()
                .meta({ description: '1–255 printable ASCII characters, quoted or bare. Replays within 24 h return the original run.' }),
            }),
          },
          requestBody: { required: true, content: { 'application/json': { schema: StartRunBody } } },
          responses: {
            '200': {
              ...ok(Run, 'Replay of an earlier request with the same Idempotency-Key.'),
              headers: { ...requestIdHeader, 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } } },
            },
            '201': {
              ...ok(Run, 'The new run (with `wait`, as it is once settled or after 25 s).'),
              headers: { ...requestIdHeader, Location: { schema: { type: 'string' }, description: '/api/v1/runs/{id}' } },
            },
            '400': problem('Malformed JSON or a bad Idempotency-Key header.'),
            '404': problem('No such workflow in this workspace.'),
            '413': problem('Input over 1 MiB.'),
            '415': problem('Body is not application/json.'),
            '422': problem('Validation failed, or the Idempotency-Key was used with another body.'),
          },
        }),
        get: op({
          operationId: 'listRuns',
          summary: "List a workflow's runs",
          scope: 'runs:read',
          requestParams: { path: WorkflowIdParams, query: ListRunsQuery },
          responses: {
            '200': ok(RunList, 'A page of runs (without steps), newest first.'),
            '400': problem('Bad query parameters.'),
            '404': problem('No such workflow in this workspace.'),
          },
        }),
      },
      '/api/v1/runs/{run_id}': {
        get: op({
          operationId: 'getRun',
          summary: 'Get a run with its steps',
          scope: 'runs:read',
          requestParams: { path: RunIdParams },
          responses: { '200': ok(Run, 'The run.'), '404': problem('No such run in this workspace.') },
        }),
      },
      '/hooks/{trigger_id}': {
        post: op({
          operationId: 'fireTrigger',
          summary: "Start a run through a workflow's inbound webhook trigger",
          description:
            'The fixed trigger URL of a workflow (`trigger.url`); not under /api/v1 and without an API key. Checks, in order, each ' +
            'answering before any run exists: body over 256 KB (413; from Content-Length before reading, else while streaming), ' +
            'IP allowlist (403 ip_not_allowed; socket address, X-Forwarded-For only behind operator-trusted proxies), required ' +
            'headers (403 required_header_missing), x-svc-secret (401 invalid_trigger_secret), x-svc-signature (401 ' +
            'invalid_trigger_signature), JSON object body (415 / 400), plan (403 plan_does_not_allow_runs), Idempotency-Key ' +
            "(200 replay), else 202. The run's input is the body and its trigger is `webhook`.",
          requestParams: { path: TriggerIdParams, header: HookHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: HookPayload } } },
          responses: {
            '200': {
              ...ok(HookAccepted, 'The Idempotency-Key was seen on this trigger within 24 h: the original run; nothing started.'),
              headers: { ...requestIdHeader, 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } } },
            },
            '202': ok(HookAccepted, 'A run was started (the answer does not wait for it).'),
            '400': problem('Malformed JSON (invalid_json), a body that is not a JSON object or a bad Idempotency-Key (invalid_request).'),
            '401': problem('Wrong or missing x-svc-secret (invalid_trigger_secret) or x-svc-signature (invalid_trigger_signature).'),
            '403': problem(
              'Source IP not in the allowlist (ip_not_allowed), a required header missing or wrong (required_header_missing), the ' +
                "workspace's plan does not allow runs (plan_does_not_allow_runs), or a browser request.",
            ),
            '404': problem('No trigger at this URL (not_found).'),
            '413': problem('Body over 256 KB (262144 bytes).'),
            '415': problem('Body not sent as Content-Type: application/json (UTF-8, no Content-Encoding).'),
            '422': problem("The body does not match the workflow's input_schema."),
            '500': problem('Internal error.'),
            '503': problem('A dependency is unavailable; retry (with the same Idempotency-Key).'),
          },
        }),
      },
      ...webhookEndpointPaths({ op, ok, problem }),
      '/api/v1/openapi.json': {
        get: op({
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document.',
              content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
            },
            '429': problem('Too many unauthenticated requests from this address (rate_limited); see Retry-After.'),
          },
        }),
      },
    },
    // Outbound webhooks (API.md §7): what subscribed endpoints receive.
    webhooks: webhookEventsDocument(),
  });
}

/** API.md §8 headers (draft-ietf-httpapi-ratelimit-headers); see apps/gateway/src/ratelimit/headers.ts. */
const RATE_LIMIT_HEADERS: Record<string, oas31.HeaderObject> = {
  'RateLimit-Policy': {
    description:
      'The quota policies that apply: "key" (requests per minute per API key), "workspace" (twice that, across all the ' +
      'workspace\'s keys) or, without a valid key, "ip" (per client address). q = quota, w = window in seconds.',
    schema: { type: 'string' },
    example: '"key";q=600;w=60, "workspace";q=1200;w=60',
  },
  RateLimit: {
    description: 'The most constraining policy now: r = requests left in the window, t = seconds until it resets.',
    schema: { type: 'string' },
    example: '"key";r=599;t=42',
  },
  'Retry-After': { description: 'Seconds to wait before retrying (on 429).', schema: { type: 'integer', minimum: 1 } },
};

/** Every /api/v1 answer carries RateLimit-Policy and RateLimit; a 429 also Retry-After. */
function withRateLimitHeaders(doc: oas31.OpenAPIObject): oas31.OpenAPIObject {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...RATE_LIMIT_HEADERS } };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const operation of [item.get, item.post, item.put, item.patch, item.delete]) {
      for (const [status, response] of Object.entries(operation?.responses ?? {}) as [string, oas31.ResponseObject][]) {
        if ('$ref' in response) continue;
        response.headers = {
          ...response.headers,
          'RateLimit-Policy': ref('RateLimit-Policy'),
          RateLimit: ref('RateLimit'),
          ...(status === '429' ? { 'Retry-After': ref('Retry-After') } : {}),
        };
      }
    }
  }
  return doc;
}
