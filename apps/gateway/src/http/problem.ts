import type { Response } from 'express';
import { AppError, errorTypeUri } from '@svc/domain';

/** Writes an RFC 9457 problem; the only way errors leave the gateway. */
export function sendProblem(res: Response, err: AppError): void {
  const requestId = String(res.locals.requestId ?? '');
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res
    .status(err.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: errorTypeUri(err.code),
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
