import { randomBytes } from 'node:crypto';
import { createReviewLinkSigner } from './reviewLinks';

const signer = createReviewLinkSigner(randomBytes(32));
const claims = { reviewId: 'rev_abc', email: 'ops@example.test', expiresAt: Date.now() + 60_000 };

describe('review links', () => {
  it('verifies its own token for the same review', () => {
    expect(signer.verify(signer.sign(claims), 'rev_abc')).toEqual(claims);
  });

  it('refuses a token for another review, an expired one, a tampered one and garbage', () => {
    const token = signer.sign(claims);
    expect(signer.verify(token, 'rev_other')).toBeNull();
    expect(signer.verify(signer.sign({ ...claims, expiresAt: Date.now() - 1 }), 'rev_abc')).toBeNull();
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ r: 'rev_abc', e: 'attacker@evil.test', x: claims.expiresAt })).toString('base64url');
    expect(signer.verify(`${forged}.${sig}`, 'rev_abc')).toBeNull();
    expect(signer.verify(`${payload}.${sig.slice(0, -2)}AA`, 'rev_abc')).toBeNull();
    for (const bad of ['', '.', 'a.b.c', `${payload}`, `${payload}.`]) expect(signer.verify(bad, 'rev_abc')).toBeNull();
  });

  it('refuses tokens signed with another key', () => {
    const other = createReviewLinkSigner(randomBytes(32));
    expect(signer.verify(other.sign(claims), 'rev_abc')).toBeNull();
  });

  it('verifies links signed under a previous key while a rotation keeps it, and signs under the new one', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const issuedBefore = createReviewLinkSigner(oldKey).sign(claims);
    const during = createReviewLinkSigner(newKey, [oldKey]);
    expect(during.verify(issuedBefore, 'rev_abc')).toEqual(claims);
    expect(createReviewLinkSigner(newKey).verify(during.sign(claims), 'rev_abc')).toEqual(claims);
    expect(createReviewLinkSigner(newKey).verify(issuedBefore, 'rev_abc')).toBeNull();
  });

  it('binds form tokens to the link token', () => {
    const a = signer.sign(claims);
    const b = signer.sign({ ...claims, email: 'x@example.test' });
    expect(signer.formToken(a)).toBe(signer.formToken(a));
    expect(signer.formToken(a)).not.toBe(signer.formToken(b));
  });
});
