import { randomBytes } from 'node:crypto';

export type IdPrefix = 'ws' | 'mem' | 'key' | 'wf' | 'run' | 'rev' | 'we' | 'evt' | 'dlv' | 'trg';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `prefix_` + 24 base36 characters (~124 bits): opaque, URL-safe, no ordering leaked. */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(24);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % 36];
  return `${prefix}_${s}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && /^[a-z]+_[0-9a-z]{1,64}$/.test(id);
}
