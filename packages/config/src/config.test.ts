import { randomBytes } from 'node:crypto';
import { loadConfig } from './config';

describe('SVC_ENCRYPTION_KEY_PREVIOUS', () => {
  it('is none by default, and takes comma-separated hex or base64 keys', () => {
    expect(loadConfig({}).SVC_ENCRYPTION_KEY_PREVIOUS).toEqual([]);
    const a = randomBytes(32);
    const b = randomBytes(32);
    const keys = loadConfig({ SVC_ENCRYPTION_KEY_PREVIOUS: `${a.toString('hex')}, ${b.toString('base64')}` }).SVC_ENCRYPTION_KEY_PREVIOUS;
    expect(keys).toEqual([a, b]);
  });

  it('refuses a key that is not 32 bytes, naming the setting', () => {
    expect(() => loadConfig({ SVC_ENCRYPTION_KEY_PREVIOUS: `${randomBytes(32).toString('hex')},abcd` })).toThrow(
      /SVC_ENCRYPTION_KEY_PREVIOUS/,
    );
  });
});
