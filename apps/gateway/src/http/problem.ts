import type { Response } from 'express';
import { AppError, errorTypeUri } from '@svc/domain';

/** How long a client is told to wait after a 503 that names no time of its own. */
const DEFAULT_RETRY_AFTER_S = '5';

/**
 * Writes an RFC 9457 problem; the only way errors leave the gateway. Every 503 says when to retry;
 * `type` is the page under this gateway's BASE_URL that explains the code.
 */
export function sendProblem(res: Response, err: AppError, baseUrl: string): void {
  const requestId = String(res.locals.requestId ?? '');
  if (err.status === 503) res.setHeader('Retry-After', DEFAULT_RETRY_AFTER_S);
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res
    .status(err.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: errorTypeUri(baseUrl, err.code),
        title: err.title,
        status: err.status,
        detail: err.message,
        code: err.code,
        request_id: requestId,
        ...err.extensions,
        ...(err.errors ? { errors: err.errors } : {}),
      }),
    );
}
