import YAML from 'yaml';
import type { z } from 'zod';
import { AppError, type FieldError } from '../errors';
import { normalizeCidr } from '../net/addressPolicy';
import { jsonDepthExceeds } from '../shared/jsonDepth';
import { parseDuration } from '@svc/config';
import { compileJsonSchema } from './inputSchema';
import { locateJsonSyntaxError } from './jsonLocate';
import { formatFieldPath } from './paths';
import {
  DEFAULT_RETRY,
  HEADER_NAME_PATTERN,
  HTTP_TIMEOUT_DEFAULT,
  KNOWN_FIELDS,
  REVIEW_TIMEOUT_DEFAULT,
  STEP_TYPES,
  definitionErrorMap,
  definitionSchema,
  type DefinitionDocument,
} from './schema';
import type { RetryPolicy, StepDefinition, TriggerSettings, WorkflowDefinition } from './types';

export const DEFINITION_INVALID = 'Workflow definition is invalid';
/** Largest definition document accepted, in characters. */
export const MAX_DEFINITION_SIZE = 1024 * 1024;
/**
 * Deepest definition document accepted: room for an input schema that describes a 64-level
 * input, while every recursive walk over definitions (templates, schemas, diffs) stays bounded.
 */
export const MAX_DEFINITION_DEPTH = 256;

export type DefinitionFormat = 'json' | 'yaml';

function invalid(errors: FieldError[]): AppError {
  return new AppError('validation_failed', DEFINITION_INVALID, { errors });
}

function tooDeep(): AppError {
  return invalid([{ path: '', message: `must not nest deeper than ${MAX_DEFINITION_DEPTH} levels` }]);
}

// ---------------------------------------------------------------------------
// Text → document

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const p = locateJsonSyntaxError(text);
    const message = p
      ? `Invalid JSON at line ${p.line}, column ${p.column}: ${p.reason}`
      : `Invalid JSON: ${String((err as Error)?.message ?? err).split('\n')[0]}`;
    throw invalid([{ path: '', message }]);
  }
}

function parseYaml(text: string): unknown {
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true, strict: true, version: '1.2' });
  // Warnings (e.g. unknown tags such as !!js/function) are treated as errors too.
  const problems = [...doc.errors, ...doc.warnings];
  // The parser ran out of stack: one message, not one per level it unwound.
  if (problems.some((e) => e.code === 'RESOURCE_EXHAUSTION')) throw tooDeep();
  if (problems.length > 0) {
    throw invalid(
      problems.slice(0, 20).map((e) => {
        const pos = e.linePos?.[0];
        const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
        const reason = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
        return { path: '', message: `Invalid YAML${where}: ${reason}` };
      }),
    );
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw invalid([{ path: '', message: `Invalid YAML: ${String((err as Error)?.message ?? err).split('\n')[0]}` }]);
  }
}

/** JSON when it looks like JSON (`{` or `[` first), otherwise YAML. */
export function detectDefinitionFormat(text: string): DefinitionFormat {
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

/**
 * Parses a definition file (JSON or YAML; detected when `format` is omitted) and
 * validates it. Syntax errors are reported as `validation_failed` with path `''` and
 * the line and column. Detection: a document whose first character is `{` or `[` is
 * JSON (and must be valid JSON); anything else is YAML.
 */
export function parseDefinition(text: string, format?: DefinitionFormat): WorkflowDefinition {
  if (typeof text !== 'string') throw invalid([{ path: '', message: 'Definition must be text' }]);
  if (text.length > MAX_DEFINITION_SIZE) {
    throw invalid([{ path: '', message: `Definition is larger than ${MAX_DEFINITION_SIZE} characters` }]);
  }
  const src = text.replace(/^\uFEFF/, '');
  if (src.trim() === '') throw invalid([{ path: '', message: 'Definition is empty' }]);
  let doc: unknown;
  if (format === 'json') doc = parseJson(src);
  else if (format === 'yaml') doc = parseYaml(src);
  else if (detectDefinitionFormat(src) === 'json') doc = parseJson(src);
  else doc = parseYaml(src);
  return validateDefinition(doc);
}

// ---------------------------------------------------------------------------
// Document → definition

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

function suggestion(key: string): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of KNOWN_FIELDS) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== undefined && bestD <= Math.max(1, Math.min(2, Math.floor(key.length / 3))) ? ` (did you mean "${best}"?)` : '';
}

function issuesToErrors(issues: readonly z.core.$ZodIssue[], doc: unknown): FieldError[] {
  const out: FieldError[] = [];
  for (const iss of issues) {
    if (iss.code === 'unrecognized_keys') {
      const owner = valueAt(doc, iss.path);
      const stepType =
        iss.path.length === 2 && iss.path[0] === 'steps' && isRecord(owner) && typeof owner.type === 'string' ? owner.type : undefined;
      for (const key of iss.keys) {
        const message =
          stepType && KNOWN_FIELDS.includes(key) ? `unknown field (not a field of ${stepType} steps)` : `unknown field${suggestion(key)}`;
        out.push({ path: formatFieldPath([...iss.path, key]), message });
      }
      continue;
    }
    if (iss.code === 'invalid_union' && (iss as { discriminator?: string }).discriminator === 'type') {
      const step = valueAt(doc, iss.path.slice(0, -1));
      const given = step && typeof step === 'object' ? (step as Record<string, unknown>).type : undefined;
      out.push({
        path: formatFieldPath(iss.path),
        message: given === undefined ? `is required (one of: ${STEP_TYPES.join(', ')})` : `must be one of: ${STEP_TYPES.join(', ')}`,
      });
      continue;
    }
    if (iss.code === 'invalid_key') {
      out.push({ path: formatFieldPath(iss.path), message: 'is not a valid key' });
      continue;
    }
    out.push({ path: formatFieldPath(iss.path), message: iss.message });
  }
  return out;
}

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let cur = doc;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks that span several fields. Runs on the raw document (so these errors are
 * reported together with the shape errors), tolerating any shape.
 */
function crossFieldErrors(doc: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(doc)) return errors;
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  const firstIndex = new Map<string, number>();
  steps.forEach((s, i) => {
    if (!isRecord(s) || typeof s.key !== 'string') return;
    const prev = firstIndex.get(s.key);
    if (prev !== undefined) {
      errors.push({ path: `steps[${i}].key`, message: `duplicate step key "${s.key}" (already used by steps[${prev}])` });
    } else firstIndex.set(s.key, i);
  });
  steps.forEach((s, i) => {
    if (!isRecord(s)) return;
    if (s.type === 'condition' && typeof s.else === 'string') {
      const target = firstIndex.get(s.else);
      if (target === undefined) errors.push({ path: `steps[${i}].else`, message: `no step has the key "${s.else}"` });
      else if (target <= i) {
        errors.push({ path: `steps[${i}].else`, message: `must name a later step ("${s.else}" is steps[${target}])` });
      }
    }
    if (s.type === 'http' && typeof s.method === 'string' && s.method.toUpperCase() === 'HEAD' && s.body !== undefined) {
      errors.push({ path: `steps[${i}].body`, message: 'a HEAD request cannot have a body' });
    }
  });
  steps.forEach((s, i) => {
    if (!isRecord(s)) return;
    if (s.type === 'http') errors.push(...headerNameErrors(s.headers, ['steps', i, 'headers']));
    errors.push(...derivedMsErrors(s, i));
  });
  if (isRecord(doc.trigger)) errors.push(...headerNameErrors(doc.trigger.required_headers, ['trigger', 'required_headers']));
  if (isRecord(doc.input_schema)) {
    try {
      compileJsonSchema(doc.input_schema);
    } catch (err) {
      errors.push({ path: 'input_schema', message: (err as Error).message });
    }
  }
  return errors;
}

/** Header names must be RFC 9110 tokens and must not repeat ignoring case. */
function headerNameErrors(headers: unknown, at: PropertyKey[]): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(headers)) return errors;
  const seen = new Map<string, string>();
  for (const name of Object.keys(headers)) {
    if (!HEADER_NAME_PATTERN.test(name)) {
      errors.push({ path: formatFieldPath([...at, name]), message: 'is not a valid HTTP header name' });
      continue;
    }
    const prev = seen.get(name.toLowerCase());
    if (prev !== undefined) {
      errors.push({ path: formatFieldPath([...at, name]), message: `repeats header "${prev}" (header names are case-insensitive)` });
    } else seen.set(name.toLowerCase(), name);
  }
  return errors;
}

/**
 * `*_ms` fields are derived from their duration text. They are accepted so that a
 * normalized definition validates again, but only when they agree with the text.
 */
function derivedMsErrors(step: Record<string, unknown>, i: number): FieldError[] {
  const errors: FieldError[] = [];
  const check = (owner: Record<string, unknown>, at: PropertyKey[], textField: string, fallback: string | undefined) => {
    const ms = owner[`${textField}_ms`];
    if (typeof ms !== 'number') return; // absent, or a type error reported by the schema
    const text = owner[textField] ?? fallback;
    if (typeof text !== 'string') return;
    let expected: number;
    try {
      expected = parseDuration(text);
    } catch {
      return; // reported on the text field
    }
    if (ms !== expected) {
      errors.push({
        path: formatFieldPath([...at, `${textField}_ms`]),
        message: `must equal ${textField} (${JSON.stringify(text)} = ${expected} ms); it is derived, leave it out`,
      });
    }
  };
  if (isRecord(step.retry)) check(step.retry, ['steps', i, 'retry'], 'interval', DEFAULT_RETRY.interval);
  if (step.type === 'http') check(step, ['steps', i], 'timeout', HTTP_TIMEOUT_DEFAULT);
  if (step.type === 'review') check(step, ['steps', i], 'timeout', REVIEW_TIMEOUT_DEFAULT);
  if (step.type === 'delay') check(step, ['steps', i], 'duration', undefined);
  return errors;
}

function normalizeRetry(r: { max_attempts: number; backoff: 'fixed' | 'exponential'; interval: string } | undefined): RetryPolicy {
  const v = r ?? DEFAULT_RETRY;
  return { max_attempts: v.max_attempts, backoff: v.backoff, interval: v.interval, interval_ms: parseDuration(v.interval) };
}

function normalizeTrigger(t: DefinitionDocument['trigger']): TriggerSettings {
  if (!t) return { secret: true, signature: false, ip_allowlist: [], required_headers: {} };
  const required: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(t.required_headers)) {
    Object.defineProperty(required, name.toLowerCase(), { value, enumerable: true, writable: true, configurable: true });
  }
  return {
    secret: t.secret,
    signature: t.signature,
    ip_allowlist: [...new Set(t.ip_allowlist.map(normalizeCidr))],
    required_headers: required,
  };
}

function normalizeStep(s: DefinitionDocument['steps'][number]): StepDefinition {
  const base = {
    key: s.key,
    name: s.name ?? s.key,
    ...(s.if !== undefined ? { if: s.if } : {}),
    retry: normalizeRetry(s.retry),
  };
  switch (s.type) {
    case 'http':
      return {
        ...base,
        type: 'http',
        method: s.method,
        url: s.url,
        headers: { ...s.headers },
        ...(s.body !== undefined ? { body: s.body } : {}),
        timeout: s.timeout,
        timeout_ms: parseDuration(s.timeout),
        allow_status: [...new Set(s.allow_status)],
      };
    case 'transform':
      return { ...base, type: 'transform', expression: s.expression };
    case 'condition':
      return {
        ...base,
        type: 'condition',
        expression: s.expression,
        ...(s.message !== undefined ? { message: s.message } : {}),
        ...(s.else !== undefined ? { else: s.else } : {}),
      };
    case 'delay':
      return { ...base, type: 'delay', duration: s.duration, duration_ms: parseDuration(s.duration) };
    case 'review':
      return {
        ...base,
        type: 'review',
        title: s.title,
        instructions: s.instructions,
        assignees: s.assignees,
        ...(s.data !== undefined ? { data: s.data } : {}),
        timeout: s.timeout,
        timeout_ms: parseDuration(s.timeout),
        on_timeout: s.on_timeout,
        on_reject: s.on_reject,
      };
  }
}

/**
 * Validates a parsed definition document and returns the normalized definition
 * (defaults applied, durations resolved to `*_ms`, CIDRs and header names normalized).
 * Throws `AppError('validation_failed', 'Workflow definition is invalid', {errors})`
 * listing every problem found, each with its path (e.g. `steps[2].retry.max_attempts`).
 */
export function validateDefinition(doc: unknown): WorkflowDefinition {
  if (!isRecord(doc)) {
    throw invalid([{ path: '', message: 'must be an object (a workflow definition document)' }]);
  }
  if (jsonDepthExceeds(doc, MAX_DEFINITION_DEPTH)) throw tooDeep();
  const result = definitionSchema.safeParse(doc, { error: definitionErrorMap });
  const errors = [...(result.success ? [] : issuesToErrors(result.error.issues, doc)), ...crossFieldErrors(doc)];
  if (!result.success || errors.length > 0) {
    // The same problem can be reported by the schema and the cross-field pass.
    const seen = new Set<string>();
    const unique = errors.filter((e) => {
      const k = `${e.path}\u0000${e.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    throw invalid(unique);
  }
  const d = result.data;
  return {
    name: d.name,
    slug: d.slug,
    description: d.description,
    ...(d.input_schema !== undefined ? { input_schema: d.input_schema } : {}),
    steps: d.steps.map(normalizeStep),
    ...(d.output !== undefined ? { output: d.output } : {}),
    trigger: normalizeTrigger(d.trigger),
  };
}
