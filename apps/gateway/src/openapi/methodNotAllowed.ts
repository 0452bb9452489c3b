import type { RequestHandler } from 'express';
import { AppError } from '@svc/domain';
import { pathMethods } from '@svc/contract';
import type { OpenApiDocument } from '@svc/contract';
import { templateMatcher } from './pathMatcher';

/**
 * After the routes: a request for a path of the OpenAPI document with a method the path does not
 * have gets 405 `method_not_allowed` with `Allow` listing the methods it has (RFC 9110 §15.5.6),
 * instead of 404. Paths outside the document fall through to the 404 handler.
 */
export function methodNotAllowed(document: OpenApiDocument): RequestHandler {
  const paths = pathMethods(document).map((p) => ({ matches: templateMatcher(p.path), allow: p.methods.join(', ') }));
  return (req, _res, next) => {
    const path = req.baseUrl + req.path;
    const found = paths.find((p) => p.matches(path));
    if (!found) return next();
    next(
      new AppError('method_not_allowed', `${req.method} is not supported here; use ${found.allow}`, { headers: { Allow: found.allow } }),
    );
  };
}
