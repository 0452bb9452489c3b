import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option } from 'commander';

/** Exit codes: 0 ok, 1 the command failed, 2 it was used wrongly (nothing was done). */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** An option argument parser for whole numbers from `min` to `max` (checked before anything runs). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER ? `Expected a whole number ≥ ${min}.` : `Expected a whole number from ${min} to ${max}.`,
      );
    }
    return n;
  };
}

/** `@file.json` (read from the file) or the JSON text itself; it must be a JSON object. */
export function jsonObject(value: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (err) {
      throw new InvalidArgumentError(`Cannot read ${value.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`Not valid JSON (${(err as Error).message}).`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('Expected a JSON object.');
  return parsed as Record<string, unknown>;
}

/** A comma-separated list with empty items dropped. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `--limit <n>`: whole numbers from 1 to `max`. */
export function limitOption(fallback: number, max = 100): Option {
  return new Option('--limit <n>', `1–${max}`).argParser(wholeNumber(1, max)).default(fallback);
}
