import type { oas31 } from 'zod-openapi';
import { DEPRECATION_EXTENSION } from './deprecation';
import type { DeprecatedOperation, Deprecation } from './deprecation';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Headers shared by many answers: defined once under components.headers, referenced everywhere. */
const COMMON_HEADERS: Record<string, oas31.HeaderObject> = {
  'Request-Id': {
    description: 'Identifies the request; the same id is in problem bodies and in the server logs.',
    required: true,
    schema: { type: 'string' },
    example: 'req_5f0c3f0a9d1e4b7c8a2b6d1e',
  },
  // draft-ietf-httpapi-ratelimit-headers; see apps/gateway/src/ratelimit/headers.ts.
  'RateLimit-Policy': {
    description:
      'The quota policies that apply: "key" (requests per minute per API key), "workspace" (twice that, across all the ' +
      'workspace\'s keys) or, without a valid key, "ip" (per client address). q = quota, w = window in seconds.',
    schema: { type: 'string' },
    example: '"key";q=600;w=60, "workspace";q=1200;w=60',
  },
  RateLimit: {
    description: 'The most constraining policy now: r = requests left in the window, t = seconds until it resets.',
    schema: { type: 'string' },
    example: '"key";r=599;t=42',
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' }, example: '13' },
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated since this date (`@` + unix seconds).',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
    example: '@1767225600',
  },
  Sunset: {
    description: 'RFC 8594: the operation stops working after this HTTP-date.',
    required: true,
    schema: { type: 'string' },
    example: 'Fri, 01 Jan 2027 00:00:00 GMT',
  },
  Link: {
    description: 'RFC 8288: the successor (`rel="successor-version"`) and the deprecation notice (`rel="deprecation"`).',
    required: true,
    schema: { type: 'string' },
    example: '</api/v2/things>; rel="successor-version", </docs#/Runs/getThing>; rel="deprecation"; type="text/html"',
  },
};

/**
 * Every answer carries Request-Id; every /api/v1 answer RateLimit-Policy and RateLimit (a 429
 * and a 503 also Retry-After); a deprecated operation's answers Deprecation, Sunset and Link.
 */
export function withCommonHeaders(doc: oas31.OpenAPIObject): oas31.OpenAPIObject {
  const { Deprecation, Sunset, Link, ...always } = COMMON_HEADERS;
  const anyDeprecated = deprecatedOperations(doc).length > 0;
  doc.components = {
    ...doc.components,
    headers: { ...doc.components?.headers, ...always, ...(anyDeprecated ? { Deprecation, Sunset, Link } : {}) },
  };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const deprecated = Boolean((operation as Record<string, unknown>)[DEPRECATION_EXTENSION]);
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, oas31.ResponseObject][]) {
        if ('$ref' in response) continue;
        response.headers = {
          'Request-Id': ref('Request-Id'),
          ...response.headers,
          ...(path.startsWith('/api/v1/') ? { 'RateLimit-Policy': ref('RateLimit-Policy'), RateLimit: ref('RateLimit') } : {}),
          ...(status === '429' || status === '503' ? { 'Retry-After': ref('Retry-After') } : {}),
          ...(deprecated ? { Deprecation: ref('Deprecation'), Sunset: ref('Sunset'), Link: ref('Link') } : {}),
        };
      }
    }
  }
  return doc;
}

/** The deprecated operations of a document (what the gateway's deprecation middleware answers for). */
export function deprecatedOperations(doc: oas31.OpenAPIObject): DeprecatedOperation[] {
  const out: DeprecatedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as (oas31.OperationObject & Record<string, unknown>) | undefined;
      const deprecation = operation?.[DEPRECATION_EXTENSION] as Deprecation | undefined;
      if (operation && deprecation) {
        out.push({ method: method.toUpperCase(), path, operationId: operation.operationId ?? '', deprecation });
      }
    }
  }
  return out;
}

/** The paths of the document and the methods each supports (for 405 + Allow on the others). */
export function pathMethods(doc: oas31.OpenAPIObject): Array<{ path: string; methods: string[] }> {
  return Object.entries(doc.paths ?? {}).map(([path, item]) => ({
    path,
    methods: METHODS.filter((m) => item[m]).map((m) => m.toUpperCase()),
  }));
}

const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * One spelling of "or null" in a 3.1 document: `anyOf: [<schema>, {type: 'null'}]`, the only one
 * that also fits a `$ref`. Zod writes `type: [T, 'null']` for bare types; those are rewritten here.
 */
export function oneNullStyle(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) oneNullStyle(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const other = Object.keys(schema).filter((k) => k !== 'type' && !ANNOTATIONS.has(k));
    if (other.length) throw new Error(`a nullable type array with ${other.join(', ')} beside it`);
    const types = schema.type.filter((t) => t !== 'null') as string[];
    delete schema.type;
    schema.anyOf = [...types.map((type) => ({ type })), { type: 'null' }];
  }
  // Example values are data, not schemas.
  for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') oneNullStyle(value);
}

/**
 * What OpenAPI 3.0.3 asks of nullable schemas, which Zod's 3.0 output leaves open: `nullable`
 * only counts beside a `type` (a nullable `$ref` gets its component's), and an enum lists `null`
 * when it may be null. A lone `allOf: [$ref]` without siblings is the `$ref` itself.
 */
export function fitOpenApi30(doc: oas31.OpenAPIObject): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    const allOf = schema.allOf as Array<Record<string, unknown>> | undefined;
    if (allOf?.length === 1 && Object.keys(schema).length === 1) {
      delete schema.allOf;
      Object.assign(schema, allOf[0]);
    }
    if (schema.nullable === true) {
      const ref = allOf?.length === 1 ? (allOf[0].$ref as string | undefined) : undefined;
      if (schema.type === undefined && ref) schema.type = components[ref.slice(ref.lastIndexOf('/') + 1)]?.type;
      if (schema.type === undefined) throw new Error('a nullable schema without a type');
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    }
    for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') visit(value);
  };
  visit(doc);
}
