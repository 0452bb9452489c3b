/** Every error the service answers with, and the one place its HTTP status is decided. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  unauthenticated: 401,
  invalid_api_key: 401,
  api_key_revoked: 401,
  api_key_expired: 401,
  invalid_trigger_secret: 401,
  invalid_trigger_signature: 401,
  insufficient_scope: 403,
  browser_requests_not_allowed: 403,
  plan_does_not_allow_runs: 403,
  ip_not_allowed: 403,
  required_header_missing: 403,
  not_found: 404,
  workflow_not_found: 404,
  run_not_found: 404,
  endpoint_not_found: 404,
  method_not_allowed: 405,
  run_not_cancellable: 409,
  review_already_decided: 409,
  no_pending_review: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  url_not_allowed: 422,
  limit_exceeded: 422,
  rate_limited: 429,
  queue_full: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  invalid_json: 'Malformed JSON',
  invalid_request: 'Invalid request',
  unauthenticated: 'Authentication required',
  invalid_api_key: 'Invalid API key',
  api_key_revoked: 'API key revoked',
  api_key_expired: 'API key expired',
  invalid_trigger_secret: 'Invalid trigger secret',
  invalid_trigger_signature: 'Invalid trigger signature',
  insufficient_scope: 'Insufficient scope',
  browser_requests_not_allowed: 'Browser requests are not allowed',
  plan_does_not_allow_runs: 'Plan does not allow runs',
  ip_not_allowed: 'IP address not allowed',
  required_header_missing: 'Required header missing',
  not_found: 'Not found',
  workflow_not_found: 'Workflow not found',
  run_not_found: 'Run not found',
  endpoint_not_found: 'Webhook endpoint not found',
  method_not_allowed: 'Method not allowed',
  run_not_cancellable: 'Run cannot be cancelled',
  review_already_decided: 'Review already decided',
  no_pending_review: 'No pending review',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  validation_failed: 'Validation failed',
  idempotency_key_reused: 'Idempotency key reused',
  url_not_allowed: 'URL not allowed',
  limit_exceeded: 'Limit exceeded',
  rate_limited: 'Rate limited',
  queue_full: 'Queue full',
  internal_error: 'Internal error',
  unavailable: 'Service unavailable',
};

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  /** Extra headers the answer must carry (e.g. Retry-After, WWW-Authenticate). */
  readonly headers?: Record<string, string>;
  /** RFC 9457 extension members, e.g. `run_status` on run_not_cancellable. */
  readonly extensions?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail?: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail ?? TITLES[code]);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.extensions = opts.extensions;
  }

  get title(): string {
    return TITLES[this.code];
  }
}

export function errorTitle(code: ErrorCode): string {
  return TITLES[code];
}

/** Where the gateway serves the page explaining each code. */
export const PROBLEM_PAGES_PATH = '/docs/problems';

/** The page of a code: its name with `-` for `_`, as URL paths are usually spelled. */
export function problemPageSlug(code: ErrorCode): string {
  return code.replace(/_/g, '-');
}

/** A problem's `type`: the URI of the gateway's page explaining the code, so it resolves wherever the gateway runs. */
export function errorTypeUri(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl}${PROBLEM_PAGES_PATH}/${problemPageSlug(code)}`;
}
