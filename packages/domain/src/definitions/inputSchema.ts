import Ajv, { type AnySchemaObject, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import RE2 from 're2';
import { AppError, type FieldError } from '../errors';
import { ExpressionError } from '../expressions/expressionError';
import { runSandboxed, SandboxBusyError, SandboxTaskError } from '../expressions/sandbox/pool';
import { formatFieldPath } from './paths';

/**
 * Workflow `input_schema` handling.
 *
 * The dialect is JSON Schema 2020-12 unless the schema's `$schema` names another one
 * that Ajv supports (2019-09, draft-07, draft-06). Formats (`email`, `date-time`, `uri`…)
 * are checked (ajv-formats). `strict: false`, so unknown keywords are ignored, as the
 * JSON Schema specification asks. Remote `$ref`s are never fetched (they fail to compile).
 * Validation never changes the input (no defaults, no coercion).
 *
 * Each distinct schema is compiled once in a fresh Ajv instance (so `$id`s from
 * different workflows can never collide or leak between them) and the validator is
 * cached, by object identity and by content.
 */

export const INPUT_ERROR_MESSAGE = "Input does not match the workflow's input_schema";
const MAX_REPORTED_ERRORS = 100;
const CACHE_SIZE = 500;

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_2019 = /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/;
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_06 = /^https?:\/\/json-schema\.org\/draft-06\/schema#?$/;

export class InputSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputSchemaError';
  }
}

function newAjv(schema: Record<string, unknown>) {
  const $schema = typeof schema.$schema === 'string' ? schema.$schema.trim() : undefined;
  const opts = {
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    // `pattern` / `patternProperties` are user regexes: RE2 runs them in linear time,
    // and refuses what it cannot (lookaround, backreferences) when the schema is applied.
    code: { regExp: RE2 as unknown as NonNullable<NonNullable<Options['code']>['regExp']> },
  };
  let ajv: Ajv | Ajv2019 | Ajv2020;
  if ($schema === undefined || DRAFT_2020.test($schema)) ajv = new Ajv2020(opts);
  else if (DRAFT_2019.test($schema)) ajv = new Ajv2019(opts);
  else if (DRAFT_07.test($schema)) ajv = new Ajv(opts);
  else if (DRAFT_06.test($schema)) {
    ajv = new Ajv(opts);
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject);
  } else {
    throw new InputSchemaError(`unsupported $schema ${JSON.stringify($schema)} (use JSON Schema 2020-12, 2019-09, draft-07 or draft-06)`);
  }
  addFormats(ajv);
  return ajv;
}

/** Compiles a JSON Schema; throws {@link InputSchemaError} with a readable reason. */
export function compileJsonSchema(schema: unknown): ValidateFunction {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InputSchemaError('must be a JSON Schema object');
  }
  const ajv = newAjv(schema as Record<string, unknown>);
  try {
    return ajv.compile(schema as AnySchemaObject);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err).split('\n')[0];
    const reason = msg.replace(/^schema is invalid:\s*/, '').replace(/\bdata(?=[/ ])/g, '#');
    throw new InputSchemaError(`is not a valid JSON Schema: ${reason}`);
  }
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** JSON pointer into `data` → segments, with indices of real arrays as numbers. */
function pointerSegments(pointer: string, data: unknown): PropertyKey[] {
  const out: PropertyKey[] = [];
  let cur: unknown = data;
  for (const s of decodePointer(pointer)) {
    if (Array.isArray(cur) && /^\d+$/.test(s)) {
      out.push(Number(s));
      cur = cur[Number(s)];
    } else {
      out.push(s);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[s] : undefined;
    }
  }
  return out;
}

function describe(err: ErrorObject, data: unknown): FieldError {
  const segs = pointerSegments(err.instancePath, data);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return { path: formatFieldPath([...segs, String(p.missingProperty)], 'input'), message: 'is required' };
    case 'additionalProperties':
      return { path: formatFieldPath([...segs, String(p.additionalProperty)], 'input'), message: 'is not allowed' };
    case 'unevaluatedProperties':
      return { path: formatFieldPath([...segs, String(p.unevaluatedProperty)], 'input'), message: 'is not allowed' };
    case 'enum': {
      const allowed = Array.isArray(p.allowedValues) ? p.allowedValues.map((v) => JSON.stringify(v)).join(', ') : '';
      return { path: formatFieldPath(segs, 'input'), message: `must be one of: ${allowed}` };
    }
    case 'const':
      return { path: formatFieldPath(segs, 'input'), message: `must be equal to ${JSON.stringify(p.allowedValue)}` };
    default:
      return { path: formatFieldPath(segs, 'input'), message: err.message ?? `fails "${err.keyword}"` };
  }
}

/** Ajv errors → the API's `errors[]` (deduplicated, at most 100). */
export function ajvErrorsToFieldErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors ?? []) {
    // `if`/`then` failures repeat the underlying errors; skip the wrapper.
    if (e.keyword === 'if') continue;
    const fe = describe(e, data);
    const k = `${fe.path}\u0000${fe.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(fe);
    if (out.length >= MAX_REPORTED_ERRORS) break;
  }
  return out;
}

export type InputValidator = (input: unknown) => void;

const noop: InputValidator = () => {};
const byIdentity = new WeakMap<object, InputValidator>();
const byContent = new Map<string, InputValidator>();

function buildValidator(schema: object): InputValidator {
  let validate: ValidateFunction;
  try {
    validate = compileJsonSchema(schema);
  } catch (err) {
    // Definitions are validated when applied, so this is a stored schema gone bad.
    throw new AppError('validation_failed', "The workflow's input_schema is invalid", {
      errors: [{ path: 'input_schema', message: (err as Error).message }],
    });
  }
  return (input: unknown) => {
    if (validate(input)) return;
    const errors = ajvErrorsToFieldErrors(validate.errors, input);
    throw new AppError('validation_failed', INPUT_ERROR_MESSAGE, {
      errors: errors.length > 0 ? errors : [{ path: 'input', message: 'does not match the input_schema' }],
    });
  };
}

/**
 * A validator for run input. Without a schema every input is accepted. The returned
 * function throws `AppError('validation_failed', …, {errors: [{path: 'input…', message}]})`.
 */
export function compileInputValidator(schema?: object | null): InputValidator {
  if (schema === undefined || schema === null) return noop;
  const hit = byIdentity.get(schema);
  if (hit) return hit;
  const key = JSON.stringify(schema);
  let v = byContent.get(key);
  if (v) {
    byContent.delete(key);
    byContent.set(key, v);
  } else {
    v = buildValidator(schema);
    byContent.set(key, v);
    if (byContent.size > CACHE_SIZE) byContent.delete(byContent.keys().next().value as string);
  }
  byIdentity.set(schema, v);
  return v;
}

/** Hard deadline for one input validation, in a sandbox thread. */
const VALIDATION_DEADLINE_MS = 2_000;

/** Seconds a start refused for validation capacity is told to wait. */
const VALIDATION_BUSY_RETRY_AFTER_S = '1';

/**
 * Validates run input against a workflow's input_schema in the expression sandbox, in the
 * workspace's own line, so a pathological schema or input can neither stall nor exhaust the
 * gateway, nor delay other workspaces' starts. Rejects with `AppError('validation_failed', …)`
 * like {@link compileInputValidator}'s validators (also when the validation itself ran past its
 * deadline: that input's cost), or `unavailable` when the sandbox had no room for it in time.
 */
export async function validateRunInput(schema: object | null | undefined, input: unknown, workspaceId: string): Promise<void> {
  if (schema === undefined || schema === null) return;
  try {
    await runSandboxed({ kind: 'validate', schema, input }, VALIDATION_DEADLINE_MS, workspaceId);
  } catch (err) {
    if (err instanceof SandboxBusyError) {
      throw new AppError('unavailable', 'Input validation is at capacity; retry shortly', {
        headers: { 'Retry-After': VALIDATION_BUSY_RETRY_AFTER_S },
      });
    }
    if (err instanceof SandboxTaskError && err.code === 'validation_failed') {
      throw new AppError('validation_failed', err.message, { errors: err.errors });
    }
    if (!(err instanceof ExpressionError) || err.code === 'expression_error') throw err;
    throw new AppError('validation_failed', INPUT_ERROR_MESSAGE, {
      errors: [{ path: 'input', message: 'could not be validated within the limits (too large or too complex)' }],
    });
  }
}
