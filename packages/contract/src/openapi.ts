import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { IdempotencyKey, PageQuery, Problem } from './common';
import { checkDeprecation, DEPRECATION_EXTENSION } from './deprecation';
import type { DeprecatedOperation, Deprecation } from './deprecation';
import { ListRunsQuery, Run, RunIdParams, RunList, StartRunBody } from './runs';
import { DecideReviewBody } from './reviews';
import { Workflow, WorkflowIdParams, WorkflowList } from './workflows';
import { HookAccepted, HookHeaders, HookPayload, TriggerIdParams } from './hooks';
import { webhookEndpointPaths, webhookEventsDocument } from './webhooksOpenapi';
import type { OpenApiHelpers, OperationSpec } from './webhooksOpenapi';

export type { OpenApiHelpers, OperationSpec } from './webhooksOpenapi';

/** The built document (an OpenAPI 3.1 object). */
export type OpenApiDocument = oas31.OpenAPIObject;

/** The tags of the document, in the order the reference page shows them. */
const TAGS: oas31.TagObject[] = [
  { name: 'Workflows', description: 'Workflows are built in the application (the `svc` CLI); the API lists and reads them.' },
  { name: 'Runs', description: 'Start runs, wait for them, read their steps (secrets removed) and cancel them.' },
  { name: 'Reviews', description: 'Decide the pending review of a run that waits for a person.' },
  { name: 'Webhook endpoints', description: 'Outbound webhooks: endpoints, signing secrets and delivery logs.' },
  { name: 'Inbound triggers', description: "A workflow's fixed trigger URL, authenticated by its secret and/or signature." },
  {
    name: 'Events',
    description: 'What subscribed webhook endpoints receive (the `webhooks` of this document), signed with `Svc-Signature`.',
  },
  { name: 'Meta', description: 'This document.' },
];

const problem = (description: string, headers?: oas31.HeadersObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: Problem } },
});

/** Answers every authenticated route can give. */
const authErrors: ZodOpenApiResponsesObject = {
  '401': problem('Missing or malformed (unauthenticated), unknown (invalid_api_key), revoked or expired API key.', {
    'WWW-Authenticate': {
      description: '`Bearer`, or `Bearer error="invalid_token"` for a key that was sent but is not valid.',
      required: true,
      schema: { type: 'string' },
    },
  }),
  '403': problem('The key lacks the scope (insufficient_scope), or the request came from a browser (browser_requests_not_allowed).'),
  '429': problem(
    "Rate limited (rate_limited): over the key's or the workspace's figure for this minute, or too many unauthenticated requests from this address; or, when starting a run, the workspace already holds 1,000 × its concurrency figure of queued runs (queue_full, nothing created). See Retry-After.",
  ),
  '500': problem('Internal error.'),
  '503': problem(
    'A dependency (PostgreSQL or Temporal) is unavailable, or Temporal refused an update for now (unavailable); retry, after Retry-After when it is sent.',
  ),
};

/** Where the reference page (/docs, Swagger UI deep links) shows an operation. */
const docsAnchor = (tag: string | undefined, operationId: string) => `/docs#/${(tag ?? 'default').replace(/\s/g, '_')}/${operationId}`;

function op(o: OperationSpec): ZodOpenApiOperationObject {
  const { scope, deprecation, ...rest } = o;
  let extension: Record<string, Deprecation> = {};
  if (deprecation) {
    checkDeprecation(deprecation);
    extension = {
      [DEPRECATION_EXTENSION]: { ...deprecation, info: deprecation.info ?? docsAnchor(rest.tags?.[0], rest.operationId ?? '') },
    };
  }
  return {
    ...rest,
    ...(deprecation ? { deprecated: true } : {}),
    ...extension,
    ...(scope ? { security: [{ bearerAuth: [scope] }], 'x-required-scope': scope } : { security: [] }),
    responses: { ...rest.responses, ...(scope ? authErrors : {}) },
  };
}

const ok = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const helpers: OpenApiHelpers = { op, ok, problem };

/** Request bodies: JSON only, and the answers a body can cause. */
const bodyErrors = {
  '400': problem('Malformed JSON (invalid_json).'),
  '413': problem('The body is too large (payload_too_large).'),
  '415': problem('A body not sent as Content-Type: application/json (unsupported_media_type).'),
};

export interface BuildOptions {
  /** The gateway's BASE_URL (the document's only server); default `/`, i.e. where the document is served. */
  serverUrl?: string;
  /**
   * More operations, registered with the same helpers (tests only: e.g. a deprecated route; the
   * production document and the committed openapi/openapi.json never have any).
   */
  extraPaths?: (h: OpenApiHelpers) => ZodOpenApiPathsObject;
}

export function buildOpenApiDocument(opts: BuildOptions = {}): oas31.OpenAPIObject {
  return withCommonHeaders(buildDocument(opts));
}

function buildDocument(opts: BuildOptions): oas31.OpenAPIObject {
  const runLinks = {
    GetRun: { operationId: 'getRun', parameters: { run_id: '$response.body#/id' }, description: 'Read the run.' },
    CancelRun: { operationId: 'cancelRun', parameters: { run_id: '$response.body#/id' }, description: 'Cancel the run.' },
    DecideReview: {
      operationId: 'decideReview',
      parameters: { run_id: '$response.body#/id' },
      description: "Decide the run's pending review.",
    },
  };
  const workflowLinks = {
    StartRun: { operationId: 'startRun', parameters: { workflow_id: '$response.body#/id' }, description: 'Start a run.' },
    ListRuns: { operationId: 'listRuns', parameters: { workflow_id: '$response.body#/id' }, description: "List the workflow's runs." },
  };
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'svc — Workflow Run API',
      version: '1.0.0',
      description:
        'Start workflow runs, read their steps, wait for results, and receive signed webhooks. JSON in, JSON out; errors are ' +
        'RFC 9457 problem details (`application/problem+json`) with a stable `code`.\n\n' +
        '**Authentication**: `Authorization: Bearer <API key>`; each operation names the scope it needs. **Browsers are refused**: a ' +
        'request carrying `Origin` or `Sec-Fetch-*` headers, and every `OPTIONS` preflight, gets 403 `browser_requests_not_allowed` ' +
        "(so call the API from a server; note that Node.js's global `fetch` adds `Sec-Fetch-Mode`).\n\n" +
        '**Every answer** carries `Request-Id`; every `/api/v1` answer also `RateLimit-Policy` and `RateLimit`, and a 429 `Retry-After`. ' +
        'A deprecated operation answers with `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers and keeps working at ' +
        'least 12 months. A method an existing path does not support gets 405 with `Allow`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Without a BASE_URL (the committed document): relative to where the document is served.
    servers: [{ url: opts.serverUrl ?? '/', description: 'The gateway serving this document.' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key `svc_…` (created with `svc keys create`); each operation names the scope it needs in its security requirement.',
        },
      },
    },
    paths: {
      '/api/v1/workflows': {
        get: op({
          operationId: 'listWorkflows',
          summary: 'List workflows',
          tags: ['Workflows'],
          scope: 'workflows:read',
          requestParams: { query: PageQuery },
          responses: {
            '200': {
              ...ok(WorkflowList, 'A page of workflows, newest first.'),
              links: {
                GetFirstWorkflow: {
                  operationId: 'getWorkflow',
                  parameters: { workflow_id: '$response.body#/data/0/id' },
                  description: 'Read the first workflow of the page.',
                },
              },
            },
            '400': problem('Bad query parameters (invalid_request).'),
          },
        }),
      },
      '/api/v1/workflows/{workflow_id}': {
        get: op({
          operationId: 'getWorkflow',
          summary: 'Get a workflow',
          tags: ['Workflows'],
          scope: 'workflows:read',
          requestParams: { path: WorkflowIdParams },
          responses: {
            '200': { ...ok(Workflow, 'The workflow.'), links: workflowLinks },
            '404': problem('No such workflow in this workspace (workflow_not_found).'),
          },
        }),
      },
      '/api/v1/workflows/{workflow_id}/runs': {
        post: op({
          operationId: 'startRun',
          summary: 'Start a run',
          description:
            'With `wait: true` the answer is held until the run settles (`succeeded`, `failed`, `cancelled` or ' +
            '`waiting_for_review`) or 25 s pass; a run still going is returned as it is: poll `Location`. A client that ' +
            'disconnects never harms the run.',
          tags: ['Runs'],
          scope: 'runs:write',
          requestParams: {
            path: WorkflowIdParams,
            header: z.object({ 'Idempotency-Key': IdempotencyKey.optional() }),
          },
          requestBody: { required: true, content: { 'application/json': { schema: StartRunBody } } },
          responses: {
            '200': {
              ...ok(Run, 'Replay of an earlier request with the same Idempotency-Key and body (within 24 h): the original run.'),
              headers: { 'Idempotent-Replayed': { required: true, schema: { type: 'string', enum: ['true'] } } },
              links: runLinks,
            },
            '201': {
              ...ok(Run, 'The new run (with `wait`, as it is once settled or after 25 s).'),
              headers: {
                Location: {
                  required: true,
                  schema: { type: 'string' },
                  description: '`/api/v1/runs/{id}`',
                  example: '/api/v1/runs/run_0123',
                },
              },
              links: runLinks,
            },
            ...bodyErrors,
            '400': problem('Malformed JSON (invalid_json) or a bad Idempotency-Key header (invalid_request).'),
            '403': problem(
              "The workspace's plan does not allow runs (plan_does_not_allow_runs), the key lacks the scope " +
                '(insufficient_scope), or the request came from a browser (browser_requests_not_allowed).',
            ),
            '404': problem('No such workflow in this workspace (workflow_not_found).'),
            '413': problem('Input over 1 MiB (payload_too_large).'),
            '422': problem(
              "The body is not valid, nests deeper than 64 levels, the input does not match the workflow's input_schema " +
                '(validation_failed), or the Idempotency-Key was used with another body (idempotency_key_reused).',
            ),
          },
        }),
        get: op({
          operationId: 'listRuns',
          summary: "List a workflow's runs",
          tags: ['Runs'],
          scope: 'runs:read',
          requestParams: { path: WorkflowIdParams, query: ListRunsQuery },
          responses: {
            '200': ok(RunList, 'A page of runs, newest first, without `steps`, `input` and `output` (read one run for those).'),
            '400': problem('Bad query parameters (invalid_request).'),
            '404': problem('No such workflow in this workspace (workflow_not_found).'),
          },
        }),
      },
      '/api/v1/runs/{run_id}': {
        get: op({
          operationId: 'getRun',
          summary: 'Get a run with its steps',
          tags: ['Runs'],
          scope: 'runs:read',
          requestParams: { path: RunIdParams },
          responses: { '200': ok(Run, 'The run.'), '404': problem('No such run in this workspace (run_not_found).') },
        }),
      },
      '/api/v1/runs/{run_id}/cancel': {
        post: op({
          operationId: 'cancelRun',
          summary: 'Cancel a run',
          description:
            'Only `queued` and `waiting_for_review` runs can be cancelled (a pending review becomes `cancelled`); an already ' +
            'cancelled run answers 200 again. The decision is taken atomically inside the run: a 200 means the run ends ' +
            '`cancelled`. No request body (an empty JSON object is accepted).',
          tags: ['Runs'],
          scope: 'runs:write',
          requestParams: { path: RunIdParams },
          responses: {
            '200': ok(Run, 'The run, now `cancelled`.'),
            ...bodyErrors,
            '404': problem('No such run in this workspace (run_not_found).'),
            '409': problem('The run is running, succeeded or failed (run_not_cancellable); `run_status` names its status.'),
            '422': problem('A body other than nothing or `{}` (validation_failed).'),
          },
        }),
      },
      '/api/v1/runs/{run_id}/review': {
        post: op({
          operationId: 'decideReview',
          summary: "Decide a run's pending review",
          description:
            'The first decision wins. Approved: the run continues. Rejected: the run ends `failed` with `review_rejected` unless the ' +
            'step continues on reject.',
          tags: ['Reviews'],
          scope: 'reviews:write',
          requestParams: { path: RunIdParams },
          requestBody: { required: true, content: { 'application/json': { schema: DecideReviewBody } } },
          responses: {
            '200': ok(Run, 'The run after the decision (its `review` decided).'),
            ...bodyErrors,
            '404': problem('No such run in this workspace (run_not_found).'),
            '409': problem(
              'The review was already decided (review_already_decided), or the run has no pending review (no_pending_review).',
            ),
            '422': problem('The body is not valid (validation_failed).'),
          },
        }),
      },
      '/hooks/{trigger_id}': {
        post: op({
          operationId: 'fireTrigger',
          summary: "Start a run through a workflow's inbound webhook trigger",
          tags: ['Inbound triggers'],
          description:
            'The fixed trigger URL of a workflow (`trigger.url`); not under /api/v1, without an API key and without the browser ' +
            'rule. Checks, in order, each answering before any run exists: body over 256 KB by Content-Length (413), requests ' +
            'per source address (429 rate_limited), unknown trigger (404), IP allowlist (403 ip_not_allowed; socket address, ' +
            'X-Forwarded-For only behind operator-trusted proxies), required headers (403 required_header_missing), ' +
            "x-svc-secret (401 invalid_trigger_secret), requests per trigger (429 rate_limited; the plan's per-key figure " +
            'per minute) — all before the body is read — then body over 256 KB while streaming (413), x-svc-signature (401 ' +
            'invalid_trigger_signature), JSON object body (415 / 400; nested deeper than 64 levels 422), plan (403 ' +
            "plan_does_not_allow_runs), Idempotency-Key (200 replay), else 202. The run's input is the body and its trigger is `webhook`.",
          requestParams: { path: TriggerIdParams, header: HookHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: HookPayload } } },
          responses: {
            '200': {
              ...ok(HookAccepted, 'The Idempotency-Key was seen on this trigger within 24 h: the original run; nothing started.'),
              headers: { 'Idempotent-Replayed': { required: true, schema: { type: 'string', enum: ['true'] } } },
            },
            '202': ok(HookAccepted, 'A run was started (the answer does not wait for it).'),
            '400': problem('Malformed JSON (invalid_json), a body that is not a JSON object or a bad Idempotency-Key (invalid_request).'),
            '401': problem('Wrong or missing x-svc-secret (invalid_trigger_secret) or x-svc-signature (invalid_trigger_signature).'),
            '403': problem(
              'Source IP not in the allowlist (ip_not_allowed), a required header missing or wrong (required_header_missing), or the ' +
                "workspace's plan does not allow runs (plan_does_not_allow_runs).",
            ),
            '404': problem('No trigger at this URL (not_found).'),
            '413': problem('Body over 256 KB (262144 bytes).'),
            '415': problem('Body not sent as Content-Type: application/json (UTF-8, no Content-Encoding).'),
            '422': problem("The body does not match the workflow's input_schema, or nests deeper than 64 levels (validation_failed)."),
            '429': problem(
              "Too many requests from this source address, or to this trigger, this minute (rate_limited); or the workspace's queue is full (queue_full). See Retry-After.",
            ),
            '500': problem('Internal error.'),
            '503': problem(
              'A dependency is unavailable (unavailable); retry with the same Idempotency-Key, after Retry-After when it is sent.',
            ),
          },
        }),
      },
      ...webhookEndpointPaths(helpers),
      '/api/v1/openapi.json': {
        get: op({
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          description: 'No API key needed. The same document, for people, is rendered at `/docs`.',
          tags: ['Meta'],
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document.',
              content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
            },
            '403': problem('A browser request (browser_requests_not_allowed).'),
            '429': problem('Too many unauthenticated requests from this address (rate_limited); see Retry-After.'),
          },
        }),
      },
      ...(opts.extraPaths ? opts.extraPaths(helpers) : {}),
    },
    // Outbound webhooks (API.md §7): what subscribed endpoints receive.
    webhooks: webhookEventsDocument(),
  });
}

/** Headers shared by many answers: defined once under components.headers, referenced everywhere. */
const COMMON_HEADERS: Record<string, oas31.HeaderObject> = {
  'Request-Id': {
    description: 'Identifies the request; the same id is in problem bodies and in the server logs.',
    required: true,
    schema: { type: 'string' },
    example: 'req_5f0c3f0a9d1e4b7c8a2b6d1e',
  },
  // API.md §8 (draft-ietf-httpapi-ratelimit-headers); see apps/gateway/src/ratelimit/headers.ts.
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
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' }, example: '13' },
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated since this date (`@` + unix seconds).',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
    example: '@1767225600',
  },
  Sunset: {
    description: 'RFC 8594: the operation stops working after this HTTP-date.',
    required: true,
    schema: { type: 'string' },
    example: 'Fri, 01 Jan 2027 00:00:00 GMT',
  },
  Link: {
    description: 'RFC 8288: the successor (`rel="successor-version"`) and the deprecation notice (`rel="deprecation"`).',
    required: true,
    schema: { type: 'string' },
    example: '</api/v2/things>; rel="successor-version", </docs#/Runs/getThing>; rel="deprecation"; type="text/html"',
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Every answer carries Request-Id; every /api/v1 answer RateLimit-Policy and RateLimit (a 429
 * and a 503 also Retry-After); a deprecated operation's answers Deprecation, Sunset and Link.
 */
function withCommonHeaders(doc: oas31.OpenAPIObject): oas31.OpenAPIObject {
  const { Deprecation, Sunset, Link, ...always } = COMMON_HEADERS;
  const anyDeprecated = deprecatedOperations(doc).length > 0;
  doc.components = {
    ...doc.components,
    headers: { ...doc.components?.headers, ...always, ...(anyDeprecated ? { Deprecation, Sunset, Link } : {}) },
  };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const deprecated = Boolean((operation as Record<string, unknown>)[DEPRECATION_EXTENSION]);
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, oas31.ResponseObject][]) {
        if ('$ref' in response) continue;
        response.headers = {
          'Request-Id': ref('Request-Id'),
          ...response.headers,
          ...(path.startsWith('/api/v1/') ? { 'RateLimit-Policy': ref('RateLimit-Policy'), RateLimit: ref('RateLimit') } : {}),
          ...(status === '429' || status === '503' ? { 'Retry-After': ref('Retry-After') } : {}),
          ...(deprecated ? { Deprecation: ref('Deprecation'), Sunset: ref('Sunset'), Link: ref('Link') } : {}),
        };
      }
    }
  }
  return doc;
}

/** The deprecated operations of a document (what the gateway's deprecation middleware answers for). */
export function deprecatedOperations(doc: oas31.OpenAPIObject): DeprecatedOperation[] {
  const out: DeprecatedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as (oas31.OperationObject & Record<string, unknown>) | undefined;
      const deprecation = operation?.[DEPRECATION_EXTENSION] as Deprecation | undefined;
      if (operation && deprecation) {
        out.push({ method: method.toUpperCase(), path, operationId: operation.operationId ?? '', deprecation });
      }
    }
  }
  return out;
}

/** The paths of the document and the methods each supports (for 405 + Allow on the others). */
export function pathMethods(doc: oas31.OpenAPIObject): Array<{ path: string; methods: string[] }> {
  return Object.entries(doc.paths ?? {}).map(([path, item]) => ({
    path,
    methods: METHODS.filter((m) => item[m]).map((m) => m.toUpperCase()),
  }));
}
