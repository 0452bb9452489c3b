import { z } from 'zod';

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
const PART = /(\d+)(ms|d|h|m|s)/gy;

/** `"500ms"`, `"30s"`, `"6h25m"` → milliseconds; null when not a positive duration. */
export function parseConfigDuration(text: string): number | null {
  const s = text.trim();
  if (!s) return null;
  let total = 0;
  PART.lastIndex = 0;
  let pos = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (!m) return null;
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = PART.lastIndex;
  }
  return total > 0 && Number.isSafeInteger(total) ? total : null;
}

/** A comma-separated list of durations (e.g. `"5s,5m,30m"`) as milliseconds, at least one. */
export const durationList = z.string().transform((v, ctx) => {
  const parts = v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const out: number[] = [];
  for (const p of parts) {
    const ms = parseConfigDuration(p);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `"${p}" is not a duration (use e.g. 500ms, 30s, 5m, 2h, 6h25m)` });
      return z.NEVER;
    }
    out.push(ms);
  }
  if (out.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must list at least one duration' });
    return z.NEVER;
  }
  return out;
});
