import { z } from 'zod';

/** The per-workspace caps a `limit_exceeded` problem names (packages/domain workspaces/caps.ts holds their figures). */
export const WORKSPACE_CAP_NAMES = ['webhook_endpoints', 'secrets', 'review_assignees'] as const;

export const Problem = z
  .looseObject({
    type: z.string().meta({ description: 'Stable URI identifying the problem type (one per code).' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable snake_case error code.', example: 'validation_failed' }),
    request_id: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'validation_failed / invalid_request: every problem with the path of the field.' }),
    run_status: z.string().optional().meta({ description: 'run_not_cancellable: the status the run is in.' }),
    limit: z.enum(WORKSPACE_CAP_NAMES).optional().meta({ description: 'limit_exceeded: the per-workspace cap that was reached.' }),
    limit_value: z.number().int().optional().meta({ description: "limit_exceeded: the workspace's figure for that cap." }),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details. Other extension members may be added; clients must ignore the ones they do not know.',
  });

/**
 * `Idempotency-Key` (API.md §4.1, §6): 1–255 printable ASCII characters, bare or in double
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
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: '1–100, default 20.' }),
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

/** Any JSON value whose strings are all storable (no U+0000). */
export const JsonValue: z.ZodType<unknown> = z
  .lazy(() => z.union([StorableString, z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(StorableString, JsonValue)]))
  .meta({ id: 'JsonValue', description: 'Any JSON value; no string in it (value or key) may contain U+0000.' });

/** A JSON object as run input: any members, no U+0000 in any string. */
export const JsonObject = z.record(StorableString, JsonValue);

/**
 * A JSON object in a request, checked here only for being one: the service walks it once itself
 * (depth, U+0000, size), where a recursive schema would cost many times its size on every request.
 */
export const RequestJsonObject = z.record(z.string(), z.unknown());

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
