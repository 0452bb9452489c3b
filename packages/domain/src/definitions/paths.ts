/**
 * Field paths in error lists (`errors[].path`): dotted names with `[n]` for array
 * indices, e.g. `steps[2].retry.max_attempts`. Keys that are not plain identifiers are
 * written as quoted brackets: `steps[0].headers["X-Api-Key"]`. The root is `''`.
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatFieldPath(segments: readonly PropertyKey[], base = ''): string {
  let out = base;
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = typeof seg === 'symbol' ? (seg.description ?? '') : seg;
      if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
