import type { RequestHandler } from 'express';
import { deprecatedOperations, deprecationHeaders } from '@svc/contract';
import type { OpenApiDocument } from '@svc/contract';
import { templateMatcher } from './pathMatcher';

/**
 * Versioning: every answer of a deprecated operation carries `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and `Link` (successor-version / deprecation). Which operations are deprecated,
 * since when and until when is read from the OpenAPI document: the `deprecation` of an operation's
 * registration in packages/contract (`op({ deprecation: { since, sunset, successor } })`), which also
 * marks it `deprecated: true` there. Set before any other handler, so refusals carry the headers too.
 */
export function deprecationNotices(document: OpenApiDocument): RequestHandler {
  const entries = deprecatedOperations(document).map((d) => ({
    methods: d.method === 'GET' ? ['GET', 'HEAD'] : [d.method],
    matches: templateMatcher(d.path),
    headers: deprecationHeaders(d.deprecation),
  }));
  return (req, res, next) => {
    if (entries.length === 0) return next();
    for (const e of entries) {
      if (e.methods.includes(req.method) && e.matches(req.path)) {
        for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
        break;
      }
    }
    next();
  };
}
