import type { ExpressionContext } from '../definitions/types';
import { ExpressionError, checkExpressionSyntax, evaluateExpression } from './evaluate';

/**
 * `{{ expression }}` templates inside strings (http step url, headers and body).
 *
 * - A string that is exactly one template (surrounding whitespace allowed) yields the
 *   expression's value with its own type: `"{{ input.count }}"` → `3`.
 * - Otherwise each template is replaced by text: strings as they are, numbers and
 *   booleans via `String`, objects and arrays as JSON, null/undefined as `''`.
 * - The end of a template is the first `}}` outside string literals, comments and
 *   brackets, so object constructors work: `{{ {'a': {'b': 1}} }}` (when the brackets
 *   never balance, the first `}}` ends it).
 * - There is no escape syntax; a literal `{{` is written `{{ '{{' }}`.
 * - Object keys are never templated.
 * - In an http step's `url` each value is percent-encoded (see urlTemplate.ts) unless
 *   written `{{ raw(expr) }}`; elsewhere `raw(…)` changes nothing.
 */

export type PathSegment = string | number;

/** `raw` marks a `{{ raw(expr) }}` placeholder: its value goes into a URL unencoded. */
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'expr'; expression: string; offset: number; raw: boolean };

const RAW_MARKER = /^\s*raw\(([\s\S]*)\)\s*$/;

export class TemplateSyntaxError extends ExpressionError {
  constructor(message: string, position: number) {
    super(message, { code: 'E_TEMPLATE', position });
    this.name = 'TemplateSyntaxError';
    this.stack = `${this.name}: ${message}`;
  }
}

function skipQuoted(s: string, i: number, quote: string): number {
  // i is at the opening quote; returns the index just after the closing one (or s.length).
  let j = i + 1;
  while (j < s.length) {
    const c = s[j];
    if (c === '\\' && quote !== '`') {
      j += 2;
      continue;
    }
    if (c === quote) return j + 1;
    j++;
  }
  return s.length;
}

/** Splits a string into literal text and `{{ … }}` expressions. Throws {@link TemplateSyntaxError}. */
export function parseTemplate(s: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < s.length) {
    const open = s.indexOf('{{', i);
    if (open < 0) break;
    if (open > i) parts.push({ kind: 'text', text: s.slice(i, open) });
    const start = open + 2;
    let j = start;
    let depth = 0;
    let end = -1;
    while (j < s.length) {
      const c = s[j];
      if (c === '"' || c === "'" || c === '`') {
        j = skipQuoted(s, j, c);
        continue;
      }
      if (c === '/' && s[j + 1] === '*') {
        const close = s.indexOf('*/', j + 2);
        j = close < 0 ? s.length : close + 2;
        continue;
      }
      if (c === '{' || c === '[' || c === '(') depth++;
      else if (c === ']' || c === ')') depth = Math.max(0, depth - 1);
      else if (c === '}') {
        if (depth === 0 && s[j + 1] === '}') {
          end = j;
          break;
        }
        depth = Math.max(0, depth - 1);
      }
      j++;
    }
    // Unbalanced brackets inside: end at the first "}}" so the expression's own syntax
    // error is what gets reported.
    if (end < 0) end = s.indexOf('}}', start);
    if (end < 0) throw new TemplateSyntaxError(`Unterminated template: "{{" at position ${open} has no matching "}}"`, open);
    const expression = s.slice(start, end);
    if (expression.trim() === '') throw new TemplateSyntaxError(`Empty template "{{ }}" at position ${open}`, open);
    const raw = RAW_MARKER.exec(expression);
    if (raw && raw[1].trim() === '') throw new TemplateSyntaxError(`Empty raw() template at position ${open}`, open);
    parts.push(
      raw ? { kind: 'expr', expression: raw[1], offset: start, raw: true } : { kind: 'expr', expression, offset: start, raw: false },
    );
    i = end + 2;
  }
  if (i < s.length) parts.push({ kind: 'text', text: s.slice(i) });
  return parts;
}

export function hasTemplates(s: string): boolean {
  return typeof s === 'string' && s.includes('{{');
}

/** The single expression when the string is exactly one template (whitespace aside). */
function soleExpression(parts: TemplatePart[]): string | null {
  const exprs = parts.filter((p) => p.kind === 'expr');
  if (exprs.length !== 1) return null;
  const textOk = parts.every((p) => p.kind === 'expr' || p.text.trim() === '');
  return textOk ? (exprs[0] as { expression: string }).expression : null;
}

/** How a value is written into a longer string. */
export function templateValueToString(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function withTemplatePosition(err: unknown, offset: number): ExpressionError {
  if (err instanceof ExpressionError) return err;
  return new ExpressionError(String((err as Error)?.message ?? err), { position: offset });
}

/** Renders one string: the raw value for a sole template, else a string. */
export async function renderTemplateString(s: string, ctx: ExpressionContext): Promise<unknown> {
  if (!hasTemplates(s)) return s;
  const parts = parseTemplate(s);
  const sole = soleExpression(parts);
  if (sole !== null) return evaluateExpression(sole, ctx);
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') out += p.text;
    else {
      try {
        out += templateValueToString(await evaluateExpression(p.expression, ctx));
      } catch (err) {
        throw withTemplatePosition(err, p.offset);
      }
    }
  }
  return out;
}

/** Like {@link renderTemplateString} but always a string (for URLs and header values). */
export async function renderTemplateText(s: string, ctx: ExpressionContext): Promise<string> {
  return templateValueToString(await renderTemplateString(s, ctx));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy of `value` with every `{{ … }}` in every string rendered. Keys are kept as
 * they are; non-string leaves are copied unchanged. Rejects with ExpressionError.
 */
export async function renderTemplates(value: unknown, ctx: ExpressionContext): Promise<unknown> {
  if (typeof value === 'string') return renderTemplateString(value, ctx);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(await renderTemplates(item, ctx));
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: await renderTemplates(v, ctx), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

export interface TemplateExpression {
  /** Where the string is, relative to the walked value (`[]` = the value itself). */
  path: PathSegment[];
  expression: string;
  /** Offset of the expression inside its string. */
  offset: number;
}

export interface TemplateProblem {
  path: PathSegment[];
  message: string;
}

function walkStrings(value: unknown, path: PathSegment[], visit: (s: string, path: PathSegment[]) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((v, i) => walkStrings(v, [...path, i], visit));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walkStrings(v, [...path, k], visit);
  }
}

/** Every `{{ … }}` expression in a value (strings with malformed templates are skipped). */
export function findTemplateExpressions(value: unknown): TemplateExpression[] {
  const found: TemplateExpression[] = [];
  walkStrings(value, [], (s, path) => {
    if (!hasTemplates(s)) return;
    let parts: TemplatePart[];
    try {
      parts = parseTemplate(s);
    } catch {
      return;
    }
    for (const p of parts) if (p.kind === 'expr') found.push({ path, expression: p.expression, offset: p.offset });
  });
  return found;
}

/**
 * Checks every template in a value: malformed `{{ … }}` and expression syntax errors.
 * Returns the problems (empty when all is well); never throws.
 */
export function compileTemplates(value: unknown): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  walkStrings(value, [], (s, path) => {
    if (!hasTemplates(s)) return;
    let parts: TemplatePart[];
    try {
      parts = parseTemplate(s);
    } catch (err) {
      problems.push({ path, message: (err as Error).message });
      return;
    }
    for (const p of parts) {
      if (p.kind !== 'expr') continue;
      const msg = checkExpressionSyntax(p.expression);
      if (msg) problems.push({ path, message: `In template {{ ${p.expression.trim()} }}: ${msg}` });
    }
  });
  return problems;
}
