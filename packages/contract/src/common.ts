import { z } from 'zod';

/** The per-workspace caps a `limit_exceeded` problem names (packages/domain workspaces/caps.ts holds their figures). */
export const WORKSPACE_CAP_NAMES = ['webhook_endpoints', 'secrets', 'review_assignees'] as const;

/**
 * `Idempotency-Key`: 1–255 printable ASCII characters, bare or in double
 * quotes (`"abc"` and `abc` are the same key). The pattern is exactly what the server accepts
 * (apps/gateway/src/http/idempotencyKey.ts); HTTP drops leading and trailing spaces of a value.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^(?:"[\\x20-\\x7E]{1,255}"|[\\x21-\\x7E][\\x20-\\x7E]{0,254})$';

export const IdempotencyKey = z
  .string()
  .min(1)
  .max(257)
  .regex(new RegExp(IDEMPOTENCY_KEY_PATTERN))
  .meta({
    description:
      '1–255 printable ASCII characters, bare or in double quotes (`"k"` and `k` are the same key). A replay of the same request ' +
      'within 24 h answers with the original result.',
    example: 'order-1234-attempt',
  });

/**
 * A page cursor: opaque to clients, but of a fixed shape (11 characters, see
 * packages/domain/src/shared/pagination.ts), so that the document says exactly which values the
 * server accepts.
 */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$';

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ format: 'int32', description: '1–100, default 20.' }),
  cursor: z
    .string()
    .regex(new RegExp(CURSOR_PATTERN))
    .optional()
    .meta({ description: 'Opaque cursor from `next_cursor` of the previous page.', example: 'AAAAAAAAAGQ' }),
});

/**
 * A string the service can store: PostgreSQL's text and jsonb cannot hold U+0000, so no string
 * the API accepts (values and object keys, at any depth) contains it.
 */
export const StorableString = z.string().regex(/^[^\u0000]*$/);

/** The document's spelling of a JSON object with any members: what every client generator maps to its map type. */
function plainObject(ctx: { jsonSchema: Record<string, unknown> }): void {
  delete ctx.jsonSchema.propertyNames;
  ctx.jsonSchema.additionalProperties = true;
}

/**
 * A JSON object whose members are the customer's own data (run input, trigger payloads): in the
 * document `{type: object, additionalProperties: true}`. A request's object is walked once by the
 * service itself (depth, U+0000, size), where a recursive schema would cost many times its size.
 */
export function jsonObject(description: string) {
  return z.record(z.string(), z.unknown()).meta({ description, override: plainObject });
}

/** Any JSON value (outputs, review data, event data): the empty schema `{}` in the document. */
export function jsonValue(description: string) {
  return z.unknown().meta({ description });
}

/** A count, an attempt number or a version: a non-negative 32-bit integer. */
export const Count = z.int32().min(0).meta({ format: 'int32' });

/** The three-digit HTTP status an answer came with; 0 when there was no answer. */
export const ResponseStatus = z.int32().min(0).max(999).meta({ format: 'int32', description: '0 = no response.' });

/** Milliseconds, never negative; 64-bit, since a run waiting for a person can last longer than 2^31 ms. */
export const DurationMs = z.int().min(0).meta({ format: 'int64', description: 'Milliseconds, never negative.' });

/** Actions without a request body (cancel, rotate, retry): nothing, or an empty object. */
export const NoRequestBody = z.strictObject({}).optional();

/** A path parameter holding an id with its prefix (packages/domain/src/ids.ts): any other value is not found. */
export function idParam(prefix: string, example: string) {
  return z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-z]{1,64}$`))
    .meta({ example });
}

export const Timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 UTC.' });

export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() }).meta({ id });
}

/** One error code the service answers with (the domain's code→status map), as the document lists it. */
export interface ProblemType {
  code: string;
  status: number;
  title: string;
  /** The problem `type` URI: a page explaining the code. */
  type: string;
}

/** RFC 9457 problem details, with `code` as an enum of every code the service answers with. */
export function problemSchema(problems: readonly ProblemType[]) {
  const codes = problems.map((p) => p.code);
  if (codes.length === 0) throw new Error('the document needs the error codes');
  return z
    .looseObject({
      type: z.string().meta({
        format: 'uri',
        description: 'The URI of the page that explains the code: `{base_url}/docs/problems/{code}`, with `-` for `_` in the code.',
      }),
      title: z.string().meta({ description: 'A short summary of the code (the same for every problem with that code).' }),
      status: z.int32().min(400).max(599).meta({ format: 'int32', description: 'The HTTP status of the answer.' }),
      detail: z.string().meta({ description: 'What went wrong with this request.' }),
      code: z.enum(codes as [string, ...string[]]).meta({ description: 'The stable snake_case error code.' }),
      request_id: z.string().meta({ description: 'The `Request-Id` of the answer.' }),
      errors: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'validation_failed / invalid_request: every problem with the path of the field.' }),
      run_status: z.string().optional().meta({ description: 'run_not_cancellable: the status the run is in.' }),
      limit: z.enum(WORKSPACE_CAP_NAMES).optional().meta({ description: 'limit_exceeded: the per-workspace cap that was reached.' }),
      limit_value: Count.optional().meta({ description: "limit_exceeded: the workspace's figure for that cap." }),
    })
    .meta({
      description: 'RFC 9457 problem details. Other extension members may be added; clients must ignore the ones they do not know.',
    });
}
