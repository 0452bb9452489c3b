import { createCipheriv, randomBytes } from 'node:crypto';

/** A value as the first SecretBox wrote it (`v1.<iv>.<tag>.<ct>`: no key id, no context), as old rows hold. */
export function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}
