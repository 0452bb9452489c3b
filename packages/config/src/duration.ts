/**
 * Durations as written in workflow definitions: one or more `<number><unit>` parts,
 * largest unit first, e.g. `"500ms"`, `"30s"`, `"2h"`, `"7d"`, `"1m30s"`, `"1h 30m"`.
 *
 * Units: `ms`, `s`, `m`, `h`, `d`. Numbers are decimal (`"1.5h"` is allowed) but the
 * total must be a whole number of milliseconds. Each unit may appear at most once and
 * in descending order, so `"30s1m"` and `"1m1m"` are refused. The total must be
 * greater than zero and at most {@link MAX_DURATION_MS} (365 days).
 */

export const MS_PER_UNIT = {
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
  ms: 1,
} as const;

export type DurationUnit = keyof typeof MS_PER_UNIT;

/** 365 days: anything longer is almost certainly a mistake. */
export const MAX_DURATION_MS = 365 * MS_PER_UNIT.d;

const UNIT_ORDER: DurationUnit[] = ['d', 'h', 'm', 's', 'ms'];
// `ms` must be tried before `m` and `s`.
const PART = /(\d+(?:\.\d+)?)(ms|d|h|m|s)\s*/y;

export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

export interface ParseDurationOptions {
  /** Upper bound in ms (inclusive). Defaults to {@link MAX_DURATION_MS}; cannot exceed it. */
  maxMs?: number;
}

/** Parses a duration such as `"1m30s"` into milliseconds; throws {@link DurationError}. */
export function parseDuration(text: string, opts: ParseDurationOptions = {}): number {
  if (typeof text !== 'string') {
    throw new DurationError('must be a duration string such as "30s", "2h" or "1m30s"');
  }
  const src = text.trim();
  if (src === '') {
    throw new DurationError('must be a duration string such as "30s", "2h" or "1m30s"');
  }
  if (src.length > 64) {
    throw new DurationError('is too long to be a duration');
  }
  let pos = 0;
  let total = 0;
  let lastUnitIndex = -1;
  while (pos < src.length) {
    PART.lastIndex = pos;
    const m = PART.exec(src);
    if (!m) {
      throw new DurationError(`"${text}" is not a valid duration (use e.g. "500ms", "30s", "5m", "2h", "7d" or "1m30s")`);
    }
    const unit = m[2] as DurationUnit;
    const unitIndex = UNIT_ORDER.indexOf(unit);
    if (unitIndex <= lastUnitIndex) {
      throw new DurationError(`"${text}" is not a valid duration: units must appear once each, largest first`);
    }
    lastUnitIndex = unitIndex;
    total += Number(m[1]) * MS_PER_UNIT[unit];
    pos = PART.lastIndex;
  }
  // Guard against float noise such as 0.1h + 0.2h.
  const rounded = Math.round(total);
  if (Math.abs(rounded - total) > 1e-6) {
    throw new DurationError(`"${text}" is not a whole number of milliseconds`);
  }
  if (rounded <= 0) {
    throw new DurationError('must be greater than zero');
  }
  const max = Math.min(opts.maxMs ?? MAX_DURATION_MS, MAX_DURATION_MS);
  if (!Number.isSafeInteger(rounded) || rounded > max) {
    throw new DurationError(`must be at most ${formatDuration(max)}`);
  }
  return rounded;
}

/** Like {@link parseDuration} but returns `null` instead of throwing. */
export function tryParseDuration(text: unknown, opts: ParseDurationOptions = {}): number | null {
  try {
    return parseDuration(text as string, opts);
  } catch {
    return null;
  }
}

/** Formats milliseconds back into the compact form, e.g. 90_000 → `"1m30s"`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0ms';
  let rest = Math.round(ms);
  let out = '';
  for (const unit of UNIT_ORDER) {
    const size = MS_PER_UNIT[unit];
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
