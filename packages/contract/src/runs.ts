import { z } from 'zod';
import { Count, DurationMs, idParam, jsonObject, jsonValue, PageQuery, pageOf, Timestamp } from './common';

export const RUN_STATUSES = ['queued', 'running', 'waiting_for_review', 'succeeded', 'failed', 'cancelled'] as const;
export const STEP_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'waiting_for_review', 'cancelled'] as const;

export const RunIdParams = z.object({ run_id: idParam('run', 'run_0123456789abcdefghijklmn') });

export const StartRunBody = z
  .strictObject({
    input: jsonObject(
      'The run input: any JSON object of at most 1 MiB, nested at most 64 levels, checked against the workflow input_schema. ' +
        'No string in it may contain U+0000.',
    ),
    wait: z.boolean().optional().meta({ description: 'Hold the request until the run settles or 25 s pass.' }),
  })
  .meta({ id: 'StartRunRequest' });

export const ListRunsQuery = PageQuery.extend({ status: z.enum(RUN_STATUSES).optional() });

const STEP_ERROR_CODES =
  'http_status (non-2xx, not in allow_status), http_timeout, http_connection, http_dns, http_tls, http_blocked_address ' +
  '(SSRF guard), http_too_large (response over 1 MiB), http_invalid_url (the rendered url is not a valid URL), ' +
  'http_invalid_request, expression_error, expression_timeout (hard time bound), expression_too_large (memory bound, ' +
  'a result over 4 Mi characters or nested deeper than 200 levels), condition_failed, step_output_too_large (over 2 MiB ' +
  'as JSON), review_rejected and review_expired (a review step), step_output_too_deep (nested deeper than 64 levels), step_output_not_storable (text holding U+0000 or an ' +
  "unpaired surrogate), run_data_too_large (the run's step outputs over 8 MiB together), step_failed";

const ErrorInfo = z.object({
  code: z.string().meta({ description: `A stable snake_case code. Steps: ${STEP_ERROR_CODES}.` }),
  message: z.string().meta({ description: 'Secrets removed.' }),
});

export const Step = z
  .object({
    key: z.string(),
    name: z.string(),
    type: z.string(),
    status: z.enum(STEP_STATUSES),
    attempts: Count.meta({ description: 'How many times the step was tried (0 before it starts).' }),
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
    duration_ms: DurationMs.nullable(),
    output: jsonValue(
      "What the step produced: any JSON value (null until it succeeds), secrets removed. An http step's output is " +
        '`{status, headers, body}`: `body` is parsed JSON for JSON content types, ' +
        'text otherwise, and `{encoding: "base64", content_type, data}` for a body that is not valid text in its charset ' +
        'or holds U+0000.',
    ),
    error: ErrorInfo.nullable(),
  })
  .meta({ id: 'Step' });

/** Kinds of principal a review decision is recorded with; see packages/domain reviews/decidedVia. */
export const DECIDED_VIA_TYPES = ['api_key', 'review_link', 'console', 'cli', 'temporal', 'timeout'] as const;

export const DecidedVia = z
  .object({
    type: z.enum(DECIDED_VIA_TYPES).meta({
      description:
        "`api_key`: the API (id: the key id). `review_link`: the mailed review page (id: the assignee). `console`: a console member (id: the member id). `cli`: `svc reviews decide` (id: the OS account that ran it). `temporal`: an operator's `decideReview` signal (no id). `timeout`: the review expired (no id).",
    }),
    id: z.string().nullable(),
  })
  .meta({ id: 'DecidedVia' });

export const Review = z
  .object({
    id: z.string(),
    step_key: z.string(),
    status: z.enum(['pending', 'approved', 'rejected', 'expired', 'cancelled']),
    title: z.string(),
    instructions: z.string(),
    assignees: z.array(z.string()),
    data: jsonValue("What the reviewer is shown: any JSON value (the step's `data` expression), secrets removed."),
    requested_at: Timestamp,
    expires_at: Timestamp,
    decision: z.enum(['approved', 'rejected']).nullable(),
    decided_by: z.string().nullable().meta({ description: 'Free-text label of who decided (the caller may choose it).' }),
    decided_via: DecidedVia.nullable().meta({
      description:
        'Who decided, as the server authenticated them; no request can set it. Null while pending, when cancelled, and for decisions recorded before svc kept it.',
    }),
    decided_at: Timestamp.nullable(),
    comment: z.string().nullable(),
  })
  .meta({ id: 'Review' });

const runFields = {
  id: z.string(),
  workflow_id: z.string(),
  workflow_version: Count.min(1).meta({ description: 'The version of the workflow the run is pinned to.' }),
  status: z.enum(RUN_STATUSES),
  input: jsonObject('The input the run was started with: any JSON object.'),
  output: jsonValue("The result of the workflow's output expression: any JSON value (null until the run succeeds), secrets removed."),
  error: ErrorInfo.extend({
    code: z.string().meta({
      description:
        "A stable snake_case code: the failing step's code (step_key names that step, a review step's too for " +
        'review_rejected and review_expired), or, for the run itself (step_key null): output_too_large, output_too_deep ' +
        '(the run output nested deeper than 64 levels), ' +
        'output_not_storable (the run output holds U+0000 or an unpaired surrogate), ' +
        'expression_error, expression_timeout or expression_too_large (the output expression), terminated (ended from Temporal).',
    }),
    step_key: z.string().nullable(),
  }).nullable(),
  trigger: z.enum(['api', 'webhook']),
  idempotency_key: z.string().nullable(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  duration_ms: DurationMs.nullable(),
};

export const Run = z.object({ ...runFields, steps: z.array(Step), review: Review.nullable() }).meta({ id: 'Run' });
/** What a list shows of a run: everything but its data, so a page stays small whatever the runs hold. */
export const RunSummary = z
  .object(runFields)
  .omit({ input: true, output: true })
  .meta({ id: 'RunSummary', description: 'A run as listed: without `input`, `output`, `steps` and `review` (read the run for those).' });
export const RunList = pageOf(RunSummary, 'RunList');
