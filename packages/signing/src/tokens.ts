import { randomBytes } from 'node:crypto';

/** `prefix` + base64url of `bytes` CSPRNG bytes (default 24 bytes = 192 bits). */
export function randomToken(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
