import { z } from 'zod';
import { checkExpressionSyntax } from '../expressions/evaluate';
import { compileTemplates, hasTemplates } from '../expressions/templates';
import { normalizeCidr } from '../net/addressPolicy';
import { CAP_CEILINGS } from '../workspaces/caps';
import { DurationError, MS_PER_UNIT, parseDuration } from '@svc/config';

/**
 * The Zod schema of a workflow definition document. It checks shapes,
 * applies defaults and compiles every expression; `validateDefinition` (parse.ts) adds
 * the checks across fields and produces the normalized `WorkflowDefinition`.
 * Every object is strict: unknown fields are errors, so typos surface.
 */

export const STEP_KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const MAX_STEPS = 100;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const STEP_TYPES = ['http', 'transform', 'condition', 'delay', 'review'] as const;
export const HTTP_TIMEOUT_MAX_MS = 5 * MS_PER_UNIT.m;
export const HTTP_TIMEOUT_DEFAULT = '30s';
export const REVIEW_TIMEOUT_DEFAULT = '7d';
export const DEFAULT_RETRY = Object.freeze({ max_attempts: 1, backoff: 'exponential' as const, interval: '1s' });
export const DEFAULT_TRIGGER = Object.freeze({ secret: true, signature: false });
/** RFC 9110 token: what a header name may contain. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// ---------------------------------------------------------------------------
// Building blocks

/** A JSONata expression, compiled so syntax errors surface with their path. */
const expression = z
  .string()
  .min(1)
  .max(10_000)
  .superRefine((src, ctx) => {
    if (src.trim() === '') return ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    const msg = checkExpressionSyntax(src);
    if (msg) ctx.addIssue({ code: 'custom', message: `invalid expression: ${msg}` });
  });

/** A string in which `{{ expression }}` templates are compiled. */
function templated(maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .superRefine((s, ctx) => {
      for (const p of compileTemplates(s)) ctx.addIssue({ code: 'custom', message: p.message });
    });
}

/** A duration string such as `"30s"`, at most `maxMs`. */
function duration(maxMs?: number) {
  return z
    .string()
    .max(64)
    .superRefine((s, ctx) => {
      try {
        parseDuration(s, { maxMs });
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof DurationError ? err.message : 'is not a valid duration' });
      }
    });
}

const stepKey = z.string().regex(STEP_KEY_PATTERN, {
  message: 'must start with a lower-case letter and contain only a-z, 0-9 and _ (at most 64 characters)',
});

const retry = z.strictObject({
  max_attempts: z.number().int().min(1).max(10).default(DEFAULT_RETRY.max_attempts),
  backoff: z.enum(['fixed', 'exponential']).default(DEFAULT_RETRY.backoff),
  interval: duration().default(DEFAULT_RETRY.interval),
  /** Derived; accepted (when consistent) so a normalized definition validates again. */
  interval_ms: z.number().optional(),
});

const stepBase = {
  key: stepKey,
  name: z.string().trim().min(1).max(200).optional(),
  if: expression.optional(),
  retry: retry.optional(),
};

const method = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(HTTP_METHODS, { message: `must be one of: ${HTTP_METHODS.join(', ')}` }));

/** Header values; names (valid, no case-insensitive repeats) are checked in parse.ts. */
const headerMap = z.record(
  z.string(),
  templated(8_192).refine((v) => !/[\r\n\0]/.test(v), { message: 'must not contain line breaks or NUL characters' }),
);

/** Any JSON value; every string in it may hold templates. */
const templatedBody = z.unknown().superRefine((v, ctx) => {
  for (const p of compileTemplates(v)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});

const httpUrl = templated(8_192).superRefine((s, ctx) => {
  if (s.trim() === '') return ctx.addIssue({ code: 'custom', message: 'must not be empty' });
  // A URL without templates must be a complete http(s) URL; a templated one must at
  // least not start with another scheme. The address itself is checked at connect time.
  if (!hasTemplates(s)) {
    let url: URL | undefined;
    try {
      url = new URL(s);
    } catch {
      return ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: `scheme ${url.protocol} is not allowed (only http and https)` });
    } else if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials; use an Authorization header' });
    }
    return;
  }
  const scheme = /^\s*([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (scheme && !['http', 'https'].includes(scheme[1].toLowerCase())) {
    ctx.addIssue({ code: 'custom', message: `scheme ${scheme[1]}: is not allowed (only http and https)` });
  }
});

// ---------------------------------------------------------------------------
// Steps

export const httpStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('http'),
  method: method.default('GET'),
  url: httpUrl,
  headers: headerMap.default({}),
  body: templatedBody.optional(),
  timeout: duration(HTTP_TIMEOUT_MAX_MS).default(HTTP_TIMEOUT_DEFAULT),
  timeout_ms: z.number().optional(),
  allow_status: z.array(z.number().int().min(100).max(599)).max(500).default([]),
});

export const transformStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('transform'),
  expression,
});

export const conditionStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('condition'),
  expression,
  message: z.string().max(1_000).optional(),
  else: stepKey.optional(),
});

export const delayStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('delay'),
  duration: duration(),
  duration_ms: z.number().optional(),
});

export const reviewStepSchema = z.strictObject({
  ...stepBase,
  type: z.literal('review'),
  title: z.string().trim().min(1).max(200),
  instructions: z.string().max(20_000).default(''),
  assignees: z
    .array(z.email({ message: 'must be an email address' }))
    // The most any workspace's cap allows; the workspace's own figure is checked when applied.
    .max(CAP_CEILINGS.review_assignees)
    .default([]),
  data: expression.optional(),
  timeout: duration().default(REVIEW_TIMEOUT_DEFAULT),
  timeout_ms: z.number().optional(),
  on_timeout: z.enum(['reject', 'approve']).default('reject'),
  on_reject: z.enum(['fail', 'continue']).default('fail'),
});

export const stepSchema = z.discriminatedUnion('type', [
  httpStepSchema,
  transformStepSchema,
  conditionStepSchema,
  delayStepSchema,
  reviewStepSchema,
]);

// ---------------------------------------------------------------------------
// Trigger and document

const cidr = z.string().superRefine((s, ctx) => {
  try {
    normalizeCidr(s);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `must be an IPv4 or IPv6 address or CIDR: ${(err as Error).message}` });
  }
});

/** Values only; names are checked (and lower-cased) in parse.ts. */
const requiredHeaders = z.record(
  z.string(),
  z
    .union([z.string().max(8_192), z.null()], { message: 'must be a string or null' })
    .refine((v) => v === null || !/[\r\n\0]/.test(v), { message: 'must not contain line breaks or NUL characters' }),
);

export const triggerSchema = z
  .strictObject({
    secret: z.boolean().default(DEFAULT_TRIGGER.secret),
    signature: z.boolean().default(DEFAULT_TRIGGER.signature),
    ip_allowlist: z.array(cidr).max(100).default([]),
    required_headers: requiredHeaders.default({}),
  })
  .superRefine((t, ctx) => {
    if (!t.secret && !t.signature) {
      ctx.addIssue({ code: 'custom', message: 'at least one of "secret" and "signature" must be true' });
    }
  });

export const definitionSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  slug: z.string().regex(SLUG_PATTERN, {
    message: 'must be 1-63 characters of a-z, 0-9 and -, starting with a letter or digit',
  }),
  description: z.string().max(10_000).default(''),
  input_schema: z.record(z.string(), z.unknown(), { message: 'must be a JSON Schema object' }).optional(),
  steps: z
    .array(stepSchema)
    .min(1, { message: 'must have at least one step' })
    .max(MAX_STEPS, {
      message: `must have at most ${MAX_STEPS} steps`,
    }),
  output: expression.optional(),
  trigger: triggerSchema.optional(),
});

export type DefinitionDocument = z.output<typeof definitionSchema>;

/** Every field name the schema knows (for "did you mean" hints on unknown fields). */
export const KNOWN_FIELDS: readonly string[] = Object.freeze([
  ...new Set([
    ...Object.keys(definitionSchema.shape),
    ...Object.keys(httpStepSchema.shape),
    ...Object.keys(transformStepSchema.shape),
    ...Object.keys(conditionStepSchema.shape),
    ...Object.keys(delayStepSchema.shape),
    ...Object.keys(reviewStepSchema.shape),
    ...Object.keys(retry.shape),
    'secret',
    'signature',
    'ip_allowlist',
    'required_headers',
  ]),
]);

/** Plural-aware friendly messages for Zod's built-in checks (used as the parse error map). */
export function definitionErrorMap(iss: z.core.$ZodRawIssue): string | undefined {
  const i = iss as z.core.$ZodRawIssue & Record<string, unknown>;
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return 'is required';
      const expected = String(i.expected);
      const article: Record<string, string> = {
        string: 'a string',
        number: 'a number',
        int: 'an integer',
        boolean: 'true or false',
        object: 'an object',
        array: 'a list',
        record: 'an object',
      };
      return `must be ${article[expected] ?? expected}`;
    }
    case 'too_small': {
      const min = Number(i.minimum);
      if (i.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (i.origin === 'array') return `must have at least ${min} item${min === 1 ? '' : 's'}`;
      return `must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(i.maximum);
      if (i.origin === 'string') return `must be at most ${max} characters`;
      if (i.origin === 'array') return `must have at most ${max} item${max === 1 ? '' : 's'}`;
      return `must be at most ${max}`;
    }
    case 'invalid_value': {
      const values = Array.isArray(i.values) ? i.values.map((v) => String(v)).join(', ') : '';
      return `must be one of: ${values}`;
    }
    default:
      return undefined;
  }
}
