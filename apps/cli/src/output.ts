import { AppError } from '@svc/domain';
import type { FieldError } from '@svc/domain';
import type { LocatedError } from './definitionFile';

export interface OutputOptions {
  json?: boolean;
}

/** `--json`: exactly one JSON object on stdout. Otherwise a readable rendering. */
export function print(value: unknown, opts: OutputOptions, human?: (v: any) => string): void {
  if (opts.json || !human) process.stdout.write(JSON.stringify(value, null, opts.json ? undefined : 2) + '\n');
  else process.stdout.write(human(value) + '\n');
}

export function table(items: object[], columns: string[]): string {
  if (items.length === 0) return '(none)';
  const rows = items as Record<string, unknown>[];
  const cells = rows.map((r) => columns.map((c) => (Array.isArray(r[c]) ? (r[c] as unknown[]).join(',') : String(r[c] ?? ''))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

/** `file:line:column: ` for a problem located in a file (editors open it there). */
function whereIn(e: FieldError): string {
  const at = e as Partial<LocatedError>;
  return at.file && at.line ? `${at.file}:${at.line}:${at.column ?? 1}: ` : '';
}

/** Errors go to stderr (as JSON with --json), never a stack trace. */
export function formatError(err: unknown, opts: OutputOptions): string {
  if (err instanceof AppError) {
    if (opts.json) return JSON.stringify({ error: { code: err.code, message: err.message, errors: err.errors, ...err.extensions } });
    const details = (err.errors ?? []).map((e) => `  ${whereIn(e)}${e.path || '(document)'}: ${e.message}`);
    return [`error: ${err.message} (${err.code})`, ...details].join('\n');
  }
  const message = err instanceof Error ? [err.message, (err.cause as Error | undefined)?.message].filter(Boolean).join(': ') : String(err);
  return opts.json ? JSON.stringify({ error: { code: 'error', message } }) : `error: ${message}`;
}
