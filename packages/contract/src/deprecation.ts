/**
 * Deprecation of an API operation: one record on the operation's
 * registration in the contract (`op({ deprecation: … })` in openapi.ts). The OpenAPI document
 * reads it (`deprecated: true`, the `x-deprecation` extension and the response headers below),
 * and so does the gateway, which answers every request to the operation with:
 *
 *   Deprecation: @1767225600                         (RFC 9745: a Structured Field Date, unix seconds)
 *   Sunset: Fri, 01 Jan 2027 00:00:00 GMT            (RFC 8594: an HTTP-date)
 *   Link: </api/v2/things>; rel="successor-version", </docs#…>; rel="deprecation"; type="text/html"
 *
 * A deprecated operation keeps working for at least 12 months after `since`.
 */
export interface Deprecation {
  /** When the operation was (or will be) deprecated: an RFC 3339 timestamp. */
  since: string;
  /** When it stops working: an RFC 3339 timestamp at least 12 months after `since`. */
  sunset: string;
  /** The path (or URL) of the operation that replaces it, if any. */
  successor?: string;
  /** Where people read about the deprecation (filled in by `op()`: the operation on the /docs page). */
  info?: string;
}

/** A deprecated operation of the document, as the gateway matches it. */
export interface DeprecatedOperation {
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/runs/{run_id}`. */
  path: string;
  operationId: string;
  deprecation: Deprecation;
}

export const DEPRECATION_EXTENSION = 'x-deprecation';

const MIN_NOTICE_MS = 365 * 24 * 3600 * 1000;

function parseTime(value: string, what: string): number {
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(t)) throw new Error(`deprecation ${what} must be an RFC 3339 timestamp: ${value}`);
  return t;
}

/** Refuses a deprecation record that breaks the contract's rules (checked when the document is built). */
export function checkDeprecation(d: Deprecation): void {
  const since = parseTime(d.since, 'since');
  const sunset = parseTime(d.sunset, 'sunset');
  if (sunset - since < MIN_NOTICE_MS) throw new Error(`deprecation sunset ${d.sunset} is less than 12 months after ${d.since}`);
}

/** The header fields a deprecated operation answers with. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const links: string[] = [];
  if (d.successor) links.push(`<${d.successor}>; rel="successor-version"`);
  if (d.info) links.push(`<${d.info}>; rel="deprecation"; type="text/html"`);
  return {
    Deprecation: `@${Math.floor(Date.parse(d.since) / 1000)}`,
    Sunset: new Date(d.sunset).toUTCString(),
    Link: links.join(', '),
  };
}
