import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets at rest. Every value is bound to a context (AES-GCM associated data) naming
 * what it is and whose, e.g. `secret:<workspace id>:<name>`: a ciphertext copied to another
 * row, workspace or purpose does not open.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the value is unreadable, sealed under an unknown key or bound to another context. */
  open(sealed: string, context: string): string;
  /** The current key's id, as sealed values carry it. */
  readonly keyId: string;
  /** Every value sealed now starts with this (`v2.<current key id>.`); any other value is due for re-encryption. */
  readonly currentPrefix: string;
}

/** Key id: the first 6 bytes of SHA-256 of the key (base64url), so no setting names keys. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 6).toString('base64url');
}

function decrypt(key: Buffer, iv: string, tag: string, ct: string, context: string | undefined): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * AES-256-GCM with a random 96-bit nonce; output `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url),
 * sealed under `current`. `previous` keys still open what they sealed, so the key can be rotated
 * (`svc secrets reencrypt`). Legacy `v1.<iv>.<tag>.<ciphertext>` values (no key id, no context)
 * open under any of the keys until they are re-encrypted.
 */
export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  for (const k of [current, ...previous]) if (k.length !== 32) throw new Error('encryption key must be 32 bytes');
  const currentId = keyId(current);
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...previous]) if (!keys.has(keyId(k))) keys.set(keyId(k), k);
  return {
    keyId: currentId,
    currentPrefix: `v2.${currentId}.`,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v2', currentId, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts[0] === 'v2' && parts.length === 5) {
        const key = keys.get(parts[1]);
        if (!key) throw new Error(`sealed under an unknown key (key id ${parts[1]}): add that key to SVC_ENCRYPTION_KEY_PREVIOUS`);
        return decrypt(key, parts[2], parts[3], parts[4], context);
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        for (const key of keys.values()) {
          try {
            return decrypt(key, parts[1], parts[2], parts[3], undefined);
          } catch {
            // Not this key: v1 values carry no key id, so each key is tried in turn.
          }
        }
        throw new Error(
          'unreadable sealed value: none of the keys opens this legacy v1 value (is its key in SVC_ENCRYPTION_KEY_PREVIOUS?)',
        );
      }
      throw new Error('unreadable sealed value');
    },
  };
}
