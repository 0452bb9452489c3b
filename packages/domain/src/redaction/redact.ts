/**
 * Removing secrets from run outputs, errors, webhook payloads and logs.
 *
 * Every occurrence of every secret value is replaced by `"[REDACTED]"`, in string values
 * and in object keys, at any depth. Besides the raw value, the forms in which a secret
 * typically shows up inside other text are matched too:
 *   - JSON-escaped (a secret with `"` or `\` inside a JSON document held in a string),
 *     up to three levels of nesting (JSON in a string in JSON in a string…),
 *   - JSON-escaped with non-ASCII characters as `\uXXXX` (as some serializers write),
 *   - URL-encoded (`encodeURIComponent`), as in query strings.
 * Overlapping matches of different secrets are merged, so no fragment of either leaks.
 * Existing `[REDACTED]` markers are left alone, so redacting twice changes nothing.
 * Each string is read once, all patterns at a time (secretMatcher.ts): time linear in
 * the text whatever the secrets, since redaction runs on a thread every workspace shares.
 *
 * Secrets of ANY non-zero length are redacted, even 1–3 characters: a short secret is
 * a weak secret but still one, and leaking it is worse than over-redacting ordinary text
 * that happens to contain the same characters. Empty strings are ignored.
 */

import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isEncodedBody } from '../shared/encodedBody';
import { compilePatterns, replaceMatches } from './secretMatcher';
import type { PatternMatcher } from './secretMatcher';

export const REDACTED = '[REDACTED]';

/** Header names whose values are credentials (compared case-insensitively). */
export const SENSITIVE_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'proxy-authorization',
]);

function jsonEscape(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** The search patterns for a list of secrets, longest first, without duplicates. */
export function secretPatterns(secretValues: readonly unknown[]): string[] {
  const set = new Set<string>();
  for (const raw of secretValues ?? []) {
    if (typeof raw !== 'string' || raw.length === 0) continue;
    let form = raw;
    set.add(form);
    for (let level = 0; level < 3; level++) {
      form = jsonEscape(form);
      set.add(form);
    }
    // JSON serializers that escape non-ASCII characters as \uXXXX (Python's json.dumps…).
    set.add(jsonEscape(raw).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    try {
      set.add(encodeURIComponent(raw));
    } catch {
      // lone surrogates cannot be URL-encoded; the raw form is still matched
    }
  }
  return [...set].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so that a key named "__proto__" stays an ordinary own property.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A secret set's patterns compiled for text, and for bytes: their UTF-8 bytes as Latin-1 text (the same when all are ASCII). */
interface Matchers {
  text: PatternMatcher;
  bytes: PatternMatcher;
}

/**
 * Compiled secret sets by a digest of their values, for a while: a run's activities, and its
 * workspace's other runs, use the same set, and compiling a large one (a hundred 64 KiB secrets)
 * takes the shared thread a second or two. Bounded by the automata's states (18 bytes each).
 */
const compiledSets = new LRUCache<string, Matchers>({
  maxSize: 16_000_000,
  sizeCalculation: (m) => m.text.longest.length + (m.bytes === m.text ? 0 : m.bytes.longest.length),
  ttl: 10 * 60_000,
});

function matchersFor(secretValues: readonly unknown[]): Matchers {
  const digest = createHash('sha256');
  // UTF-16 code units as they are: UTF-8 would make every unpaired surrogate the same U+FFFD.
  for (const v of secretValues ?? [])
    if (typeof v === 'string' && v.length > 0) digest.update(`${v.length}:`).update(Buffer.from(v, 'utf16le'));
  const key = digest.digest('base64');
  const known = compiledSets.get(key);
  if (known) return known;
  const patterns = secretPatterns(secretValues);
  const text = compilePatterns(patterns);
  const ascii = !patterns.some((p) => /[\u0080-\uffff]/.test(p));
  const matchers = { text, bytes: ascii ? text : compilePatterns(patterns.map((p) => Buffer.from(p, 'utf8').toString('latin1'))) };
  compiledSets.set(key, matchers);
  return matchers;
}

/**
 * The deep copy behind {@link secretRedactor}, with an explicit stack: outputs come from
 * receivers and expressions, so no depth may overflow the call stack. A container is
 * created when first met and filled when popped; `seen` keeps shared parts and cycles.
 * Bytes (Buffers, and bodies kept as base64) are redacted byte for byte, so what is not
 * a secret stays exactly as it was.
 */
function redactDeep(root: unknown, matchers: Matchers): unknown {
  const redactString = (s: string): string => replaceMatches(s, matchers.text, REDACTED);
  const redactBytes = (bytes: Buffer): Buffer => {
    const latin1 = bytes.toString('latin1');
    const out = replaceMatches(latin1, matchers.bytes, REDACTED);
    return out === latin1 ? bytes : Buffer.from(out, 'latin1');
  };
  const seen = new WeakMap<object, unknown>();
  const toFill: Array<[object, unknown[] | Record<string, unknown>]> = [];
  const copy = (value: unknown): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (value === null || typeof value !== 'object') return value;
    const existing = seen.get(value);
    if (existing !== undefined) return existing;
    if (value instanceof Date) return new Date(value.getTime());
    if (Buffer.isBuffer(value)) return Buffer.from(redactBytes(value));
    if (isEncodedBody(value)) {
      const bytes = Buffer.from(value.data, 'base64');
      const redacted = redactBytes(bytes);
      const contentType = value.content_type === null ? null : redactString(value.content_type);
      return { encoding: value.encoding, content_type: contentType, data: redacted === bytes ? value.data : redacted.toString('base64') };
    }
    let out: unknown[] | Record<string, unknown>;
    if (Array.isArray(value)) out = [];
    else if (value instanceof Error) {
      const e = new Error(redactString(value.message));
      e.name = value.name;
      e.stack = value.stack === undefined ? undefined : redactString(value.stack);
      out = e as unknown as Record<string, unknown>;
    } else {
      // Other class instances (Map, typed arrays…) are not JSON data: their own enumerable
      // properties go into a plain object, as JSON.stringify would write them.
      out = {};
    }
    seen.set(value, out);
    toFill.push([value, out]);
    return out;
  };
  const result = copy(root);
  while (toFill.length > 0) {
    const [from, out] = toFill.pop() as [object, unknown[] | Record<string, unknown>];
    if (Array.isArray(out)) for (const item of from as unknown[]) out.push(copy(item));
    else for (const [k, v] of Object.entries(from)) setOwn(out, redactString(k), copy(v));
  }
  return result;
}

/**
 * A redaction of the given secrets, compiled once: a deep copy of any value with every secret
 * value replaced by `"[REDACTED]"` in every string and every object key. The input is not
 * modified. Cycles are preserved. Any depth. Time linear in the strings' lengths.
 */
export function secretRedactor(secretValues: readonly unknown[]): <T>(value: T) => T {
  const matchers = matchersFor(secretValues);
  return <T>(value: T): T => redactDeep(value, matchers) as T;
}

/** {@link secretRedactor} for one value. */
export function redactSecrets<T>(value: T, secretValues: readonly string[]): T {
  return secretRedactor(secretValues)(value);
}

/** Redacts the secrets in an error message (or any text). */
export function redactError(message: string, secretValues: readonly string[]): string {
  return redactText(String(message ?? ''), secretValues);
}

/** Redacts a single string. Same rules as {@link redactSecrets}. */
export function redactText(text: string, secretValues: readonly string[]): string {
  return replaceMatches(text, matchersFor(secretValues).text, REDACTED);
}

/**
 * Copy of a header map with credential-bearing headers (`authorization`, `cookie`,
 * `set-cookie`, `x-api-key`, `proxy-authorization`, any case, plus `extra`) replaced by
 * `"[REDACTED]"`. Other headers are kept as they are.
 */
export function redactHeaders<H extends Record<string, unknown>>(
  headers: H,
  extra: readonly string[] = [],
): { [K in keyof H]: H[K] | string } {
  const names = new Set([...SENSITIVE_HEADERS, ...extra.map((h) => h.toLowerCase())]);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    setOwn(out, k, names.has(k.toLowerCase()) && v !== undefined && v !== null ? REDACTED : v);
  }
  return out as { [K in keyof H]: H[K] | string };
}
