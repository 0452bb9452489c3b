import express from 'express';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, assertJsonDepth } from '@svc/domain';

/** A little over the 1 MiB input limit, so the envelope `{input, wait}` fits around it. */
export const API_BODY_LIMIT = 1024 * 1024 + 16 * 1024;

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Bodies must be application/json (415), well-formed (400), within the limit (413) and nested at
 * most MAX_JSON_DEPTH deep (422, checked iteratively before any recursive validation sees them).
 */
export function jsonBody(limit = API_BODY_LIMIT): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    if (hasBody(req) && !req.is('application/json')) {
      next(new AppError('unsupported_media_type', 'Send the body as Content-Type: application/json'));
      return;
    }
    next();
  };
  const boundedDepth: RequestHandler = (req, _res, next) => {
    // Every body is an object around its payload (a run's `input`, say): one level of envelope.
    assertJsonDepth(req.body, 'body', 1);
    next();
  };
  return [requireJson, express.json({ limit, strict: false, type: 'application/json' }), boundedDepth];
}

/** Turns body-parser failures into problems instead of HTML error pages. */
export const bodyParserErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') return next(new AppError('payload_too_large', 'The request body is too large'));
  if (type === 'entity.parse.failed') return next(new AppError('invalid_json', 'The request body is not valid JSON'));
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return next(new AppError('unsupported_media_type', 'Unsupported body encoding or charset'));
  }
  if (type === 'request.aborted') return next(new AppError('invalid_request', 'The request body was not received completely'));
  next(err);
};
