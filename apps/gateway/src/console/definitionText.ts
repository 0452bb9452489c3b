import { stringify as toYaml } from 'yaml';

type Step = Record<string, unknown> & { retry?: Record<string, unknown> };

/** A step without the fields the parser derives from the author's own (`timeout_ms` from `timeout`, …). */
function authored(step: Step): Step {
  const { timeout_ms: _t, duration_ms: _d, ...rest } = step;
  if (!rest.retry) return rest;
  const { interval_ms: _i, ...retry } = rest.retry;
  return { ...rest, retry };
}

/**
 * A version's text for the editor: the author's own when it was kept; otherwise (versions saved
 * before texts were kept) the stored definition as YAML, less the derived fields, so changing
 * `interval` alone is not refused for disagreeing with a stale `interval_ms`.
 */
export function versionText(v: { source: string | null; definition: unknown } | undefined): string {
  if (!v) return '';
  if (v.source !== null) return v.source;
  const def = (v.definition ?? {}) as { steps?: Step[] };
  return toYaml(Array.isArray(def.steps) ? { ...def, steps: def.steps.map(authored) } : def);
}
