import { z } from 'zod';
import { tryParseDuration } from './duration';

/** A comma-separated list of durations (e.g. `"5s,5m,30m"`) as milliseconds, at least one, in the one duration grammar. */
export const durationList = z.string().transform((v, ctx) => {
  const parts = v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const out: number[] = [];
  for (const p of parts) {
    const ms = tryParseDuration(p);
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
