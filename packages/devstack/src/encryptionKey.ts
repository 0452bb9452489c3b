import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readIfExists } from './readIfExists';

export const ENCRYPTION_KEY_FILE_NAME = 'encryption.key';

/**
 * The development encryption key of the embedded stack: 64 hex characters kept in
 * `DATA_DIR/encryption.key` (mode 0600), created on first use. Only for the embedded
 * default — a deployment sets SVC_ENCRYPTION_KEY itself.
 */
export function loadOrCreateDevEncryptionKey(dataDir: string): string {
  const file = path.join(path.resolve(dataDir), ENCRYPTION_KEY_FILE_NAME);
  const existing = readKey(file);
  if (existing !== null) return existing;
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString('hex');
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    // Someone else created it first: theirs wins.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readKey(file);
      if (theirs !== null) return theirs;
    }
    throw err;
  }
}

function readKey(file: string): string | null {
  const raw = readIfExists(file);
  if (raw === null) return null;
  const key = raw.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(key)) {
    throw new Error(
      `${file} does not hold a 64-hex-character key. Data encrypted with the old key cannot be read without it; ` +
        'restore the file, or delete it together with the data directory to start over.',
    );
  }
  return key.toLowerCase();
}
