import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/config';
import { loadOrCreateDevEncryptionKey } from './encryptionKey';

describe('dev encryption key', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a 64-hex key with mode 0600 and returns the same key afterwards', () => {
    const dataDir = path.join(dir, '.data');
    const key = loadOrCreateDevEncryptionKey(dataDir);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
    expect(loadOrCreateDevEncryptionKey(dataDir)).toBe(key);
  });

  it('is accepted by the config schema as SVC_ENCRYPTION_KEY', () => {
    const key = loadOrCreateDevEncryptionKey(dir);
    const cfg = loadConfig({ SVC_ENCRYPTION_KEY: key });
    expect(cfg.SVC_ENCRYPTION_KEY?.length).toBe(32);
  });

  it('differs between data dirs', () => {
    expect(loadOrCreateDevEncryptionKey(path.join(dir, 'a'))).not.toBe(loadOrCreateDevEncryptionKey(path.join(dir, 'b')));
  });

  it('refuses a corrupted key file instead of silently replacing it', () => {
    writeFileSync(path.join(dir, 'encryption.key'), 'not-a-key\n');
    expect(() => loadOrCreateDevEncryptionKey(dir)).toThrow(/does not hold a 64-hex-character key/);
  });
});
