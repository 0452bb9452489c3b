import type { z } from 'zod';
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiRequestBodyObject, ZodOpenApiResponseObject } from 'zod-openapi';
import type { ProblemType } from './common';
import { checkDeprecation, DEPRECATION_EXTENSION } from './deprecation';
import type { Deprecation } from './deprecation';
import { exampleProblem } from './examples';

/** An operation as registered in the contract: its scope (none: no API key) and its deprecation, if any. */
export type OperationSpec = ZodOpenApiOperationObject & { scope?: string; deprecation?: Deprecation };

/** How operations are registered: security, the shared error answers, deprecation and examples. */
export interface OpenApiHelpers {
  op(o: OperationSpec): ZodOpenApiOperationObject;
  /** A JSON answer and its example. */
  ok(schema: z.ZodType, description: string, example: unknown): ZodOpenApiResponseObject;
  /** A problem answer: the codes it can carry (each gets an example) and what they mean here. */
  problem(codes: string[], description: string, headers?: oas31.HeadersObject): ZodOpenApiResponseObject;
  /** A required JSON request body and its example. */
  json(schema: z.ZodType, example: unknown): ZodOpenApiRequestBodyObject;
}

/** The codes every authenticated operation can answer with, by status. */
const AUTH_CODES: Record<string, string[]> = {
  '401': ['unauthenticated', 'invalid_api_key', 'api_key_revoked', 'api_key_expired'],
  '403': ['insufficient_scope', 'browser_requests_not_allowed'],
};

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Where the reference page (/docs, Swagger UI deep links) shows an operation. */
const docsAnchor = (tag: string | undefined, operationId: string) => `/docs#/${(tag ?? 'default').replace(/\s/g, '_')}/${operationId}`;

/** The codes a problem answer lists (its examples). */
export function problemCodes(response: unknown): string[] {
  const content = (response as { content?: Record<string, { examples?: Record<string, unknown> }> }).content;
  return Object.keys(content?.[PROBLEM_MEDIA_TYPE]?.examples ?? {});
}

export function createHelpers(problems: readonly ProblemType[], problemSchema: z.ZodType): OpenApiHelpers {
  const byCode = new Map(problems.map((p) => [p.code, p]));

  const problem: OpenApiHelpers['problem'] = (codes, description, headers) => {
    const examples = Object.fromEntries(
      codes.map((code) => {
        const p = byCode.get(code);
        if (!p) throw new Error(`the document names an error code the service does not have: ${code}`);
        return [code, { summary: p.title, value: exampleProblem(p) }];
      }),
    );
    return { description, ...(headers ? { headers } : {}), content: { [PROBLEM_MEDIA_TYPE]: { schema: problemSchema, examples } } };
  };

  /** Answers every authenticated route can give. */
  const authErrors = {
    '401': problem(AUTH_CODES['401'], 'Missing or malformed (unauthenticated), unknown (invalid_api_key), revoked or expired API key.', {
      'WWW-Authenticate': {
        description: '`Bearer`, or `Bearer error="invalid_token"` for a key that was sent but is not valid.',
        required: true,
        schema: { type: 'string' },
        example: 'Bearer',
      },
    }),
    '403': problem(
      AUTH_CODES['403'],
      'The key lacks the scope (insufficient_scope), or the request came from a browser (browser_requests_not_allowed).',
    ),
    '429': problem(
      ['rate_limited'],
      "Rate limited (rate_limited): over the key's or the workspace's figure for this minute, or too many unauthenticated requests from this address. See Retry-After.",
    ),
    '500': problem(['internal_error'], 'Internal error.'),
    '503': problem(
      ['unavailable'],
      'A dependency (PostgreSQL or Temporal) is unavailable, or Temporal refused an update for now (unavailable); retry, after Retry-After when it is sent.',
    ),
  };

  /** Every code a problem answer lists has the answer's status; an operation's own 401/403 keep the authentication codes. */
  function checkProblems(operationId: string, responses: Record<string, unknown>, scoped: boolean): void {
    for (const [status, response] of Object.entries(responses)) {
      for (const code of problemCodes(response)) {
        if (String(byCode.get(code)?.status) !== status) {
          throw new Error(`${operationId}: its ${status} answer lists ${code}, whose status is ${byCode.get(code)?.status}`);
        }
      }
      const missing = scoped ? (AUTH_CODES[status] ?? []).filter((code) => !problemCodes(response).includes(code)) : [];
      if (missing.length) throw new Error(`${operationId}: its ${status} answer must list ${missing.join(', ')} too`);
    }
  }

  function op(o: OperationSpec): ZodOpenApiOperationObject {
    const { scope, deprecation, ...rest } = o;
    let extension: Record<string, Deprecation> = {};
    if (deprecation) {
      checkDeprecation(deprecation);
      extension = {
        [DEPRECATION_EXTENSION]: { ...deprecation, info: deprecation.info ?? docsAnchor(rest.tags?.[0], rest.operationId ?? '') },
      };
    }
    const responses = { ...(scope ? authErrors : {}), ...rest.responses };
    checkProblems(rest.operationId ?? '', responses, Boolean(scope));
    return {
      ...rest,
      ...(deprecation ? { deprecated: true } : {}),
      ...extension,
      ...(scope ? { security: [{ bearerAuth: [scope] }], 'x-required-scope': scope } : { security: [] }),
      responses,
    };
  }

  return {
    op,
    problem,
    ok: (schema, description, example) => ({ description, content: { 'application/json': { schema, example } } }),
    json: (schema, example) => ({ required: true, content: { 'application/json': { schema, example } } }),
  };
}
