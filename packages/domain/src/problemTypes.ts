import { ERROR_STATUS, errorTitle, errorTypeUri, problemPageSlug } from './errors';
import type { ErrorCode } from './errors';

/** What a code means and what the client does about it: the page its problem `type` points at. */
interface Explanation {
  /** When the service answers with the code. */
  when: string;
  /** What the client should do next. */
  then: string;
}

const EXPLANATIONS: Record<ErrorCode, Explanation> = {
  invalid_json: {
    when: 'The request body is not well-formed JSON.',
    then: 'Send a valid JSON document (UTF-8) with `Content-Type: application/json`.',
  },
  invalid_request: {
    when: 'A query parameter or a header is not valid: a `limit` outside 1–100, a `cursor` the service did not hand out, a malformed `Idempotency-Key`, or a trigger body that is not a JSON object. `errors` lists each problem with its path.',
    then: 'Fix the parameters named in `errors`; use `next_cursor` values exactly as received.',
  },
  unauthenticated: {
    when: 'The request carries no `Authorization: Bearer <API key>` header, or a malformed one. The answer carries `WWW-Authenticate: Bearer`.',
    then: 'Send an API key (`svc_…`) as a Bearer token.',
  },
  invalid_api_key: {
    when: 'The API key is not known to the service.',
    then: 'Check the key; create a new one with `svc keys create` if it is lost (keys are shown only once).',
  },
  api_key_revoked: {
    when: 'The API key was revoked; revocation takes effect on the very next request.',
    then: 'Use another key of the workspace, or create a new one.',
  },
  api_key_expired: {
    when: 'The API key passed its expiry date.',
    then: 'Create a new key and replace the expired one.',
  },
  invalid_trigger_secret: {
    when: "A workflow's inbound trigger requires its shared secret and the `x-svc-secret` header is missing or wrong.",
    then: "Send the trigger's secret in `x-svc-secret`.",
  },
  invalid_trigger_signature: {
    when: "A workflow's inbound trigger requires a signature and `x-svc-signature` is missing or does not match the body.",
    then: "Sign the exact raw body: lowercase hex HMAC-SHA256 keyed with the trigger's signing secret, optionally prefixed `sha256=`.",
  },
  insufficient_scope: {
    when: 'The API key lacks the scope the operation needs; `detail` names it.',
    then: 'Use a key with that scope (each operation of the API reference names its scope).',
  },
  browser_requests_not_allowed: {
    when: 'The request came from a browser: it carries an `Origin` or `Sec-Fetch-Site` header, or it is an `OPTIONS` preflight. API keys never belong in a browser.',
    then: 'Call the API from a server. Such refusals do not count against the rate limit.',
  },
  plan_does_not_allow_runs: {
    when: "The workspace's plan (free) does not allow runs; nothing was created or queued.",
    then: 'Move the workspace to a plan with runs.',
  },
  ip_not_allowed: {
    when: "The sender's address is not in the inbound trigger's IP allowlist.",
    then: 'Send from an allowed address, or have the allowlist changed.',
  },
  required_header_missing: {
    when: 'A header the inbound trigger requires is missing or has another value.',
    then: "Send every header the trigger's definition requires.",
  },
  not_found: {
    when: 'Nothing is at this address: an unknown route, trigger or delivery.',
    then: 'Check the URL and the ids in it.',
  },
  workflow_not_found: {
    when: "No workflow with this id exists in the workspace of the API key (another workspace's id answers the same).",
    then: 'List the workflows (`GET /api/v1/workflows`) for the ids this key can see.',
  },
  run_not_found: {
    when: "No run with this id exists in the workspace of the API key (another workspace's id answers the same).",
    then: "Check the run id; list a workflow's runs to find it.",
  },
  endpoint_not_found: {
    when: 'No webhook endpoint with this id exists in the workspace of the API key.',
    then: 'List the endpoints (`GET /api/v1/webhook-endpoints`) for the ids this key can see.',
  },
  method_not_allowed: {
    when: 'The path exists but does not support this HTTP method. The answer carries `Allow`.',
    then: 'Use one of the methods in `Allow`.',
  },
  run_not_cancellable: {
    when: 'Only `queued` and `waiting_for_review` runs can be cancelled; this one is running or finished. `run_status` names its status.',
    then: 'Nothing to do for a finished run; a running one can be cancelled once it waits again, or by an operator in Temporal.',
  },
  review_already_decided: {
    when: "The run's review was decided already; the first decision wins.",
    then: 'Read the run to see the decision.',
  },
  no_pending_review: {
    when: 'The run is not waiting for a review.',
    then: 'Read the run: decide only while its status is `waiting_for_review`.',
  },
  conflict: {
    when: 'The request conflicts with the state of the resource, e.g. retrying a delivery of a disabled webhook endpoint.',
    then: 'Change the state first (re-enable the endpoint), then retry.',
  },
  payload_too_large: {
    when: 'The body is too large: a run input over 1 MiB, a trigger body over 256 KB, or another body over its limit.',
    then: 'Send less data; pass large data by reference (a URL or an id) instead.',
  },
  unsupported_media_type: {
    when: 'A body was sent without `Content-Type: application/json` (or, for triggers, with a `Content-Encoding`).',
    then: 'Send JSON with `Content-Type: application/json`.',
  },
  validation_failed: {
    when: "The body does not match the operation's schema: unknown or missing fields, wrong types, nesting deeper than 64 levels, U+0000 in a string, or a run input that does not match the workflow's `input_schema`. `errors` lists each problem with its path.",
    then: 'Fix the fields named in `errors`.',
  },
  idempotency_key_reused: {
    when: 'The `Idempotency-Key` was used within the last 24 hours with a different body for this workflow.',
    then: 'Use a new key for a new request; repeat a request only with exactly the same body.',
  },
  url_not_allowed: {
    when: 'A webhook endpoint URL is not `https`, or it targets a loopback, private, link-local, CGNAT, multicast, reserved or metadata address.',
    then: 'Use a public `https` URL.',
  },
  limit_exceeded: {
    when: 'The workspace already holds its cap of something (webhook endpoints, secrets, review assignees); nothing was created. `limit` names the cap and `limit_value` its figure.',
    then: 'Remove one first, or ask for a higher cap.',
  },
  rate_limited: {
    when: "Too many requests this minute: over the key's figure, the workspace's (twice that, across its keys), a trigger's, or an address's without a valid key.",
    then: 'Wait the seconds in `Retry-After`, then retry; the `RateLimit` headers show what is left.',
  },
  queue_full: {
    when: 'The workspace already holds 1,000 × its concurrency figure of queued runs; nothing was created.',
    then: 'Wait for runs to finish (see `Retry-After`), then start again.',
  },
  internal_error: {
    when: 'Something failed on the service side. No details are given; the server logs hold them under the `request_id`.',
    then: 'Retry later; quote the `request_id` when you report it.',
  },
  unavailable: {
    when: 'A dependency (PostgreSQL or Temporal) is briefly out of reach, or busy.',
    then: 'Retry after `Retry-After` seconds; repeat run starts with the same `Idempotency-Key` so nothing is started twice.',
  },
};

/** One code as the API documents it: its status, title, the page its `type` points at, and what it means. */
export interface ProblemType extends Explanation {
  code: ErrorCode;
  status: number;
  title: string;
  /** The problem `type` URI. */
  type: string;
  /** The page's last path segment. */
  slug: string;
}

/** Every code the service answers with, in the order of the code→status map. */
export function problemTypes(baseUrl: string): ProblemType[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => ({
    code,
    status: ERROR_STATUS[code],
    title: errorTitle(code),
    type: errorTypeUri(baseUrl, code),
    slug: problemPageSlug(code),
    ...EXPLANATIONS[code],
  }));
}
