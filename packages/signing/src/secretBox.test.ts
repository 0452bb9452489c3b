import { randomBytes } from 'node:crypto';
import { legacySeal } from '../../../test/helpers/legacySeal';
import { createSecretBox, keyId } from './secretBox';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);

describe('the secret box', () => {
  it('opens what it sealed in the same context, and carries the key id', () => {
    const box = createSecretBox(newKey);
    const sealed = box.seal('tok_123', 'secret:ws_a:API_TOKEN');
    expect(box.keyId).toBe(keyId(newKey));
    expect(sealed.startsWith(`v2.${keyId(newKey)}.`)).toBe(true);
    expect(sealed.startsWith(box.currentPrefix)).toBe(true);
    expect(sealed.split('.')).toHaveLength(5);
    expect(box.open(sealed, 'secret:ws_a:API_TOKEN')).toBe('tok_123');
    expect(sealed).not.toContain('tok_123');
  });

  it('refuses a ciphertext moved to another workspace, name or purpose', () => {
    const box = createSecretBox(newKey);
    const sealed = box.seal('tok_123', 'secret:ws_a:API_TOKEN');
    for (const other of ['secret:ws_b:API_TOKEN', 'secret:ws_a:OTHER', 'endpoint-signing:ws_a:we_1', '']) {
      expect(() => box.open(sealed, other)).toThrow();
    }
  });

  it('refuses a tampered value and garbage', () => {
    const box = createSecretBox(newKey);
    const [v, kid, iv, tag, ct] = box.seal('tok_123', 'c').split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([v, kid, iv, tag, flipped.toString('base64url')].join('.'), 'c')).toThrow();
    for (const bad of ['', 'v2', 'v2.a.b.c', 'v3.a.b.c.d', 'plain text'])
      expect(() => box.open(bad, 'c')).toThrow('unreadable sealed value');
  });

  it('opens values of a previous key during a rotation, and seals only under the current one', () => {
    const before = createSecretBox(oldKey);
    const sealedBefore = before.seal('tok_old', 'trigger-secret:ws_a:wf_1');
    const during = createSecretBox(newKey, [oldKey]);
    expect(during.open(sealedBefore, 'trigger-secret:ws_a:wf_1')).toBe('tok_old');
    expect(sealedBefore.startsWith(during.currentPrefix)).toBe(false);
    const resealed = during.seal('tok_old', 'trigger-secret:ws_a:wf_1');
    expect(resealed.startsWith(`v2.${keyId(newKey)}.`)).toBe(true);
    // Once the previous key is dropped, only what was re-sealed still opens.
    const after = createSecretBox(newKey);
    expect(after.open(resealed, 'trigger-secret:ws_a:wf_1')).toBe('tok_old');
    expect(() => after.open(sealedBefore, 'trigger-secret:ws_a:wf_1')).toThrow(/unknown key/);
  });

  it('opens legacy v1 values (no context) under the current or a previous key', () => {
    expect(createSecretBox(oldKey).open(legacySeal(oldKey, 'legacy'), 'secret:ws_a:X')).toBe('legacy');
    expect(createSecretBox(newKey, [oldKey]).open(legacySeal(oldKey, 'legacy'), 'secret:ws_a:X')).toBe('legacy');
    expect(() => createSecretBox(newKey).open(legacySeal(oldKey, 'legacy'), 'secret:ws_a:X')).toThrow('unreadable sealed value');
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
    expect(() => createSecretBox(newKey, [randomBytes(31)])).toThrow();
  });
});
