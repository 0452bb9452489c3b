import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStackRunning, readStackFile, removeStackFile, stackFilePath, writeStackFile, type StackInfo } from './stackFile';

describe('stack file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-stackfile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const info: StackInfo = {
    databaseUrl: 'postgresql://postgres:pw@127.0.0.1:5433/svc',
    temporalAddress: '127.0.0.1:7233',
    temporalNamespace: 'default',
    temporalUiUrl: 'http://127.0.0.1:8233',
    apiUrl: 'http://localhost:8080',
    encryptionKey: 'ab'.repeat(32),
    pid: process.pid,
    startedAt: '2026-01-01T00:00:00.000Z',
  };

  it('round-trips, with mode 0600, in a data dir it creates', () => {
    const dataDir = path.join(dir, 'nested', '.data');
    const file = writeStackFile(dataDir, info);
    expect(file).toBe(path.join(dataDir, 'stack.json'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readStackFile(dataDir)).toEqual(info);
    expect(isStackRunning(readStackFile(dataDir)!)).toBe(true);
  });

  it('overwrites an existing file and keeps null UI url', () => {
    writeStackFile(dir, info);
    writeStackFile(dir, { ...info, temporalUiUrl: null, pid: 1234567 });
    const back = readStackFile(dir)!;
    expect(back.temporalUiUrl).toBeNull();
    expect(back.pid).toBe(1234567);
  });

  it('returns null when absent and after removal', () => {
    expect(readStackFile(dir)).toBeNull();
    writeStackFile(dir, info);
    removeStackFile(dir);
    expect(readStackFile(dir)).toBeNull();
    removeStackFile(dir); // no error when already gone
  });

  it('rejects malformed content with a message naming the file', () => {
    writeFileSync(stackFilePath(dir), '{nope');
    expect(() => readStackFile(dir)).toThrow(/stack\.json is not valid JSON/);
    writeFileSync(stackFilePath(dir), JSON.stringify({ ...info, pid: 'x' }));
    expect(() => readStackFile(dir)).toThrow(/pid must be an integer/);
    writeFileSync(stackFilePath(dir), JSON.stringify({ ...info, databaseUrl: undefined }));
    expect(() => readStackFile(dir)).toThrow(/databaseUrl/);
  });

  it('tells a dead supervisor from a live one', () => {
    expect(isStackRunning({ ...info, pid: 2 ** 22 + 12345 })).toBe(false);
  });
});
