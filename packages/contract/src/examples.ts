import type { ProblemType } from './common';

/**
 * Example values of the document: one per request body and per answer, shown by the reference
 * page and by generated clients' docs. Each must match its schema (the OpenAPI linter checks every
 * example against the schema it sits beside, extra members included).
 */

const WORKFLOW_ID = 'wf_0123456789abcdefghijklmn';
const RUN_ID = 'run_0123456789abcdefghijklmn';
const ENDPOINT_ID = 'we_0123456789abcdefghijklmn';
const DELIVERY_ID = 'dlv_0123456789abcdefghijklmn';
const EVENT_ID = 'evt_0123456789abcdefghijklmn';
const CREATED = '2026-03-02T09:14:07.312Z';
const STARTED = '2026-03-02T09:14:07.330Z';
const FINISHED = '2026-03-02T09:14:07.371Z';

export const exampleStartRun = { input: { name: 'Ada' }, wait: true };

export const exampleWorkflow = {
  id: WORKFLOW_ID,
  name: 'Greet',
  slug: 'greet',
  description: 'Greets a person by name.',
  version: 3,
  input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  steps: [{ key: 'shape', name: 'shape', type: 'transform' }],
  trigger: { url: 'http://localhost:8080/hooks/trg_0123456789abcdefghijklmn', auth: { secret: true, signature: false } },
  created_at: '2026-02-20T16:02:11.004Z',
  updated_at: '2026-03-01T08:45:52.918Z',
};

const runSummary = {
  id: RUN_ID,
  workflow_id: WORKFLOW_ID,
  workflow_version: 3,
  status: 'succeeded',
  error: null,
  trigger: 'api',
  idempotency_key: 'order-1234-attempt',
  created_at: CREATED,
  started_at: STARTED,
  finished_at: FINISHED,
  duration_ms: 41,
};

export const exampleRun = {
  ...runSummary,
  input: { name: 'Ada' },
  output: { greeting: 'hello Ada' },
  steps: [
    {
      key: 'shape',
      name: 'shape',
      type: 'transform',
      status: 'succeeded',
      attempts: 1,
      started_at: STARTED,
      finished_at: FINISHED,
      duration_ms: 12,
      output: { greeting: 'hello Ada' },
      error: null,
    },
  ],
  review: null,
};

const pendingReview = {
  id: 'rev_0123456789abcdefghijklmn',
  step_key: 'check',
  status: 'pending',
  title: 'Check the refund',
  instructions: 'Approve refunds under 100 EUR.',
  assignees: ['ops@example.com'],
  data: { order_id: 'A-1042', amount: 42 },
  requested_at: STARTED,
  expires_at: '2026-03-09T09:14:07.330Z',
  decision: null,
  decided_by: null,
  decided_via: null,
  decided_at: null,
  comment: null,
};

const reviewStep = {
  key: 'check',
  name: 'Check the refund',
  type: 'review',
  status: 'waiting_for_review',
  attempts: 1,
  started_at: STARTED,
  finished_at: null,
  duration_ms: null,
  output: null,
  error: null,
};

/** A run that waited for a review and was cancelled. */
export const exampleCancelledRun = {
  ...exampleRun,
  status: 'cancelled',
  input: { order_id: 'A-1042', amount: 42 },
  output: null,
  idempotency_key: null,
  duration_ms: 5210,
  finished_at: '2026-03-02T09:14:12.540Z',
  steps: [{ ...reviewStep, status: 'cancelled', finished_at: '2026-03-02T09:14:12.540Z', duration_ms: 5210 }],
  review: { ...pendingReview, status: 'cancelled' },
};

export const exampleDecideReview = { decision: 'approve', comment: 'Within the limit.', decided_by: 'ops@example.com' };

/** The run after an approval, going on with its next step. */
export const exampleDecidedRun = {
  ...exampleCancelledRun,
  status: 'running',
  finished_at: null,
  duration_ms: null,
  steps: [
    { ...reviewStep, status: 'succeeded', finished_at: '2026-03-02T09:20:41.002Z', duration_ms: 393672, output: { decision: 'approved' } },
  ],
  review: {
    ...pendingReview,
    status: 'approved',
    decision: 'approved',
    decided_by: 'ops@example.com',
    decided_via: { type: 'api_key', id: 'key_0123456789abcdefghijklmn' },
    decided_at: '2026-03-02T09:20:41.002Z',
    comment: 'Within the limit.',
  },
};

export const exampleRunList = { data: [runSummary], next_cursor: 'AAAAAAAAAGQ' };
export const exampleWorkflowList = { data: [exampleWorkflow], next_cursor: null };

export const exampleTriggerPayload = { order_id: 'A-1042', amount: 42 };
export const exampleTriggerAccepted = { run_id: RUN_ID, status: 'queued' };

export const exampleCreateEndpoint = {
  url: 'https://hooks.example.com/svc',
  event_types: ['run.succeeded', 'run.failed'],
  description: 'Order service',
};
export const exampleUpdateEndpoint = { enabled: true };

export const exampleEndpoint = {
  id: ENDPOINT_ID,
  url: 'https://hooks.example.com/svc',
  event_types: ['run.succeeded', 'run.failed'],
  description: 'Order service',
  status: 'enabled',
  disabled_reason: null,
  created_at: CREATED,
  updated_at: CREATED,
};
const SECRET = 'whsec_YW4gZXhhbXBsZSBlbmRwb2ludCBzZWNyZXQgKDMyQik=';
export const exampleCreatedEndpoint = { ...exampleEndpoint, secret: SECRET };
export const exampleEndpointList = { data: [exampleEndpoint], next_cursor: null };
export const exampleRotatedSecret = { secret: SECRET, previous_secret_expires_at: '2026-03-03T09:14:07.312Z' };

export const exampleDelivery = {
  id: DELIVERY_ID,
  event_id: EVENT_ID,
  event_type: 'run.succeeded',
  status: 'succeeded',
  attempt_count: 1,
  next_attempt_at: null,
  last_attempt_at: FINISHED,
  last_response_status: 200,
  created_at: FINISHED,
};
export const exampleDeliveryList = { data: [exampleDelivery], next_cursor: null };
export const exampleDeliveryWithAttempts = {
  ...exampleDelivery,
  endpoint_id: ENDPOINT_ID,
  attempts: [{ number: 1, started_at: FINISHED, duration_ms: 87, response_status: 200, response_body_excerpt: 'ok', error: null }],
};
export const exampleRetriedDelivery = { ...exampleDelivery, status: 'pending', next_attempt_at: '2026-03-02T10:00:01.000Z' };

/** The body an endpoint receives for an event of this type. */
export function exampleEvent(type: string) {
  const data = type.startsWith('review.')
    ? { ...exampleDecidedRun.review, run_id: RUN_ID }
    : type.startsWith('workflow.')
      ? exampleWorkflow
      : type === 'run.waiting_for_review'
        ? {
            ...exampleCancelledRun,
            status: 'waiting_for_review',
            finished_at: null,
            duration_ms: null,
            steps: [reviewStep],
            review: pendingReview,
          }
        : { ...exampleRun, status: type.slice('run.'.length) };
  return { id: EVENT_ID, type, created_at: FINISHED, workspace_id: 'ws_0123456789abcdefghijklmn', data };
}

export const exampleOpenApiDocument = { openapi: '3.1.0', info: { title: 'svc — Workflow Run API', version: '1.0.0' }, paths: {} };

/** Extension members a problem with this code carries. */
const PROBLEM_EXAMPLE_MEMBERS: Record<string, Record<string, unknown>> = {
  validation_failed: { errors: [{ path: 'input.name', message: 'must have required property "name"' }] },
  invalid_request: { errors: [{ path: 'limit', message: 'Too big: expected number to be <=100' }] },
  run_not_cancellable: { run_status: 'succeeded' },
  limit_exceeded: { limit: 'webhook_endpoints', limit_value: 50 },
};

/** A problem answer with this code, as the service writes it. */
export function exampleProblem(p: ProblemType) {
  return {
    type: p.type,
    title: p.title,
    status: p.status,
    detail: `${p.title}.`,
    code: p.code,
    request_id: 'req_5f0c3f0a9d1e4b7c8a2b6d1e',
    ...PROBLEM_EXAMPLE_MEMBERS[p.code],
  };
}
