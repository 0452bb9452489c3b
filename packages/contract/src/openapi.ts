import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { oas31, ZodOpenApiPathsObject } from 'zod-openapi';
import { IdempotencyKey, jsonObject, PageQuery, problemSchema } from './common';
import type { ProblemType } from './common';
import {
  exampleCancelledRun,
  exampleDecidedRun,
  exampleDecideReview,
  exampleOpenApiDocument,
  exampleRun,
  exampleRunList,
  exampleStartRun,
  exampleTriggerAccepted,
  exampleTriggerPayload,
  exampleWorkflow,
  exampleWorkflowList,
} from './examples';
import { createHelpers } from './openapiHelpers';
import type { OpenApiHelpers } from './openapiHelpers';
import { fitOpenApi30, oneNullStyle, withCommonHeaders } from './openapiPasses';
import { ListRunsQuery, Run, RunIdParams, RunList, StartRunBody } from './runs';
import { DecideReviewBody } from './reviews';
import { Workflow, WorkflowIdParams, WorkflowList } from './workflows';
import { HookAccepted, HookHeaders, HookPayload, TriggerIdParams } from './hooks';
import { webhookEndpointPaths, webhookEventsDocument } from './webhooksOpenapi';

export type { OpenApiHelpers, OperationSpec } from './openapiHelpers';
export { deprecatedOperations, pathMethods } from './openapiPasses';

/** The built document (an OpenAPI 3.1 object, or 3.0 when asked for). */
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
    description:
      "What subscribed webhook endpoints receive (the `webhooks` of this document), signed with `Svc-Signature` and with Standard Webhooks' `webhook-signature`.",
  },
  { name: 'Meta', description: 'This document, as OpenAPI 3.1 and as OpenAPI 3.0.' },
];

/** The gateway's address when BASE_URL is not set: the default of the committed documents' server variable. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

export interface BuildOptions {
  /** Every code the service answers with (the domain's code→status map), with its title and type URI. */
  problems: readonly ProblemType[];
  /** The gateway's BASE_URL: the default of the document's `base_url` server variable. */
  baseUrl?: string;
  /** 3.1 (the default), or the 3.0 rendering for generators that cannot read 3.1 (no `webhooks` section). */
  openapiVersion?: '3.1.0' | '3.0.3';
  /**
   * More operations, registered with the same helpers (tests only: e.g. a deprecated route; the
   * production document and the committed openapi/ documents never have any).
   */
  extraPaths?: (h: OpenApiHelpers) => ZodOpenApiPathsObject;
}

export function buildOpenApiDocument(opts: BuildOptions): oas31.OpenAPIObject {
  const doc = withCommonHeaders(buildDocument(opts));
  if (doc.openapi.startsWith('3.1')) oneNullStyle(doc);
  else fitOpenApi30(doc);
  return doc;
}

const DESCRIPTION =
  'Start workflow runs, read their steps, wait for results, and receive signed webhooks. JSON in, JSON out.\n\n' +
  '**Authentication**: `Authorization: Bearer <API key>`; each operation names the scope it needs. **Browsers are refused**: a ' +
  'request carrying `Origin` or `Sec-Fetch-*` headers, and every `OPTIONS` preflight, gets 403 `browser_requests_not_allowed` ' +
  "(so call the API from a server; note that Node.js's global `fetch` adds `Sec-Fetch-Mode`).\n\n" +
  '**Errors** are RFC 9457 problem details (`application/problem+json`): `code` is one of a fixed set (the `Problem` schema ' +
  'lists them), and `type` is the URI of a page under `/docs/problems/` that explains the code.\n\n' +
  "**Customer data** — a run's `input` and `output`, a step's `output`, a review's `data`, an event's `data`, a workflow's " +
  '`input_schema` — is any JSON the workflow works with: objects are `{type: object, additionalProperties: true}`, other ' +
  "values the empty schema; read them as your language's map or dynamic value. A field that can be null is always present.\n\n" +
  '**Every answer** carries `Request-Id`; every `/api/v1` answer also `RateLimit-Policy` and `RateLimit`, and a 429 `Retry-After`. ' +
  'A deprecated operation answers with `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers and keeps working at ' +
  'least 12 months. A method an existing path does not support gets 405 with `Allow`.';

function buildDocument(opts: BuildOptions): oas31.OpenAPIObject {
  const version = opts.openapiVersion ?? '3.1.0';
  const Problem = problemSchema(opts.problems);
  const helpers = createHelpers(opts.problems, Problem);
  const { op, ok, problem, json } = helpers;
  /** Request bodies: JSON only, and the answers a body can cause. */
  const bodyErrors = {
    '400': problem(['invalid_json'], 'Malformed JSON (invalid_json).'),
    '413': problem(['payload_too_large'], 'The body is too large (payload_too_large).'),
    '415': problem(['unsupported_media_type'], 'A body not sent as Content-Type: application/json (unsupported_media_type).'),
  };
  const badQuery = problem(['invalid_request'], 'Bad query parameters (invalid_request).');
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
  const documentOperation = (operationId: string, openapi: string, description: string) =>
    op({
      operationId,
      summary: `This document, as OpenAPI ${openapi.slice(0, 3)}`,
      description: `No API key needed. ${description}`,
      tags: ['Meta'],
      responses: {
        '200': ok(jsonObject(`An OpenAPI ${openapi} document.`), `The OpenAPI ${openapi} document.`, {
          ...exampleOpenApiDocument,
          openapi,
        }),
        '403': problem(['browser_requests_not_allowed'], 'A browser request (browser_requests_not_allowed).'),
        '429': problem(['rate_limited'], 'Too many unauthenticated requests from this address (rate_limited); see Retry-After.'),
      },
    });
  return createDocument({
    openapi: version,
    info: {
      title: 'svc — Workflow Run API',
      version: '1.0.0',
      description: DESCRIPTION,
      // 3.0 has no SPDX `identifier`.
      license: version === '3.1.0' ? { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } : { name: 'Proprietary' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The gateway.',
        variables: {
          base_url: {
            default: opts.baseUrl ?? DEFAULT_BASE_URL,
            description: "The gateway's BASE_URL: scheme, host and port (and a path prefix, if any), without a trailing slash.",
          },
        },
      },
    ],
    tags: version === '3.1.0' ? TAGS : TAGS.filter((t) => t.name !== 'Events'),
    components: {
      schemas: { Problem },
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
              ...ok(WorkflowList, 'A page of workflows, newest first.', exampleWorkflowList),
              links: {
                GetFirstWorkflow: {
                  operationId: 'getWorkflow',
                  parameters: { workflow_id: '$response.body#/data/0/id' },
                  description: 'Read the first workflow of the page.',
                },
              },
            },
            '400': badQuery,
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
            '200': { ...ok(Workflow, 'The workflow.', exampleWorkflow), links: workflowLinks },
            '404': problem(['workflow_not_found'], 'No such workflow in this workspace (workflow_not_found).'),
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
          requestBody: json(StartRunBody, exampleStartRun),
          responses: {
            '200': {
              ...ok(
                Run,
                'Replay of an earlier request with the same Idempotency-Key and body (within 24 h): the original run.',
                exampleRun,
              ),
              headers: { 'Idempotent-Replayed': { required: true, schema: { type: 'string', enum: ['true'] }, example: 'true' } },
              links: runLinks,
            },
            '201': {
              ...ok(Run, 'The new run (with `wait`, as it is once settled or after 25 s).', exampleRun),
              headers: {
                Location: {
                  required: true,
                  schema: { type: 'string' },
                  description: '`/api/v1/runs/{id}`',
                  example: '/api/v1/runs/run_0123456789abcdefghijklmn',
                },
              },
              links: runLinks,
            },
            ...bodyErrors,
            '400': problem(
              ['invalid_json', 'invalid_request'],
              'Malformed JSON (invalid_json) or a bad Idempotency-Key header (invalid_request).',
            ),
            '403': problem(
              ['plan_does_not_allow_runs', 'insufficient_scope', 'browser_requests_not_allowed'],
              "The workspace's plan does not allow runs (plan_does_not_allow_runs; nothing is created), the key lacks the scope " +
                '(insufficient_scope), or the request came from a browser (browser_requests_not_allowed).',
            ),
            '404': problem(['workflow_not_found'], 'No such workflow in this workspace (workflow_not_found).'),
            '413': problem(['payload_too_large'], 'Input over 1 MiB (payload_too_large).'),
            '422': problem(
              ['validation_failed', 'idempotency_key_reused'],
              "The body is not valid, nests deeper than 64 levels, the input does not match the workflow's input_schema " +
                '(validation_failed), or the Idempotency-Key was used with another body (idempotency_key_reused).',
            ),
            '429': problem(
              ['rate_limited', 'queue_full'],
              "Rate limited (rate_limited): over the key's or the workspace's figure for this minute; or the workspace already " +
                'holds 1,000 × its concurrency figure of queued runs (queue_full, nothing created). See Retry-After.',
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
            '200': ok(
              RunList,
              'A page of runs, newest first, without `steps`, `input` and `output` (read one run for those).',
              exampleRunList,
            ),
            '400': badQuery,
            '404': problem(['workflow_not_found'], 'No such workflow in this workspace (workflow_not_found).'),
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
          responses: {
            '200': ok(Run, 'The run.', exampleRun),
            '404': problem(['run_not_found'], 'No such run in this workspace (run_not_found).'),
          },
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
            '200': ok(Run, 'The run, now `cancelled`.', exampleCancelledRun),
            ...bodyErrors,
            '404': problem(['run_not_found'], 'No such run in this workspace (run_not_found).'),
            '409': problem(
              ['run_not_cancellable'],
              'The run is running, succeeded or failed (run_not_cancellable); `run_status` names its status.',
            ),
            '422': problem(['validation_failed'], 'A body other than nothing or `{}` (validation_failed).'),
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
          requestBody: json(DecideReviewBody, exampleDecideReview),
          responses: {
            '200': ok(Run, 'The run after the decision (its `review` decided).', exampleDecidedRun),
            ...bodyErrors,
            '404': problem(['run_not_found'], 'No such run in this workspace (run_not_found).'),
            '409': problem(
              ['review_already_decided', 'no_pending_review'],
              'The review was already decided (review_already_decided), or the run has no pending review (no_pending_review).',
            ),
            '422': problem(['validation_failed'], 'The body is not valid (validation_failed).'),
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
          requestBody: json(HookPayload, exampleTriggerPayload),
          responses: {
            '200': {
              ...ok(
                HookAccepted,
                'The Idempotency-Key was seen on this trigger within 24 h: the original run; nothing started.',
                exampleTriggerAccepted,
              ),
              headers: { 'Idempotent-Replayed': { required: true, schema: { type: 'string', enum: ['true'] }, example: 'true' } },
            },
            '202': ok(HookAccepted, 'A run was started (the answer does not wait for it).', exampleTriggerAccepted),
            '400': problem(
              ['invalid_json', 'invalid_request'],
              'Malformed JSON (invalid_json), a body that is not a JSON object or a bad Idempotency-Key (invalid_request).',
            ),
            '401': problem(
              ['invalid_trigger_secret', 'invalid_trigger_signature'],
              'Wrong or missing x-svc-secret (invalid_trigger_secret) or x-svc-signature (invalid_trigger_signature).',
            ),
            '403': problem(
              ['ip_not_allowed', 'required_header_missing', 'plan_does_not_allow_runs'],
              'Source IP not in the allowlist (ip_not_allowed), a required header missing or wrong (required_header_missing), or the ' +
                "workspace's plan does not allow runs (plan_does_not_allow_runs).",
            ),
            '404': problem(['not_found'], 'No trigger at this URL (not_found).'),
            '413': problem(['payload_too_large'], 'Body over 256 KB (262144 bytes) (payload_too_large).'),
            '415': problem(
              ['unsupported_media_type'],
              'Body not sent as Content-Type: application/json (UTF-8, no Content-Encoding) (unsupported_media_type).',
            ),
            '422': problem(
              ['validation_failed'],
              "The body does not match the workflow's input_schema, or nests deeper than 64 levels (validation_failed).",
            ),
            '429': problem(
              ['rate_limited', 'queue_full'],
              "Too many requests from this source address, or to this trigger, this minute (rate_limited); or the workspace's queue is full (queue_full). See Retry-After.",
            ),
            '500': problem(['internal_error'], 'Internal error.'),
            '503': problem(
              ['unavailable'],
              'A dependency is unavailable (unavailable); retry with the same Idempotency-Key, after Retry-After when it is sent.',
            ),
          },
        }),
      },
      ...webhookEndpointPaths(helpers),
      '/api/v1/openapi.json': {
        get: documentOperation('getOpenApiDocument', '3.1.0', 'The same document, for people, is rendered at `/docs`.'),
      },
      '/api/v1/openapi-3.0.json': {
        get: documentOperation(
          'getOpenApi30Document',
          '3.0.3',
          'The same contract for client generators that cannot read OpenAPI 3.1, without the `webhooks` section.',
        ),
      },
      ...(opts.extraPaths ? opts.extraPaths(helpers) : {}),
    },
    // Outbound webhooks (what subscribed endpoints receive): OpenAPI 3.1 only.
    ...(version === '3.1.0' ? { webhooks: webhookEventsDocument() } : {}),
  });
}
