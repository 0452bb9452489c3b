import { writeJson } from './jsonWriter';

/** JSON with object keys sorted at every level, so equal values always serialize equally. At any depth. */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  writeJson(value, (chunk) => parts.push(chunk), { sortKeys: true });
  return parts.join('');
}
