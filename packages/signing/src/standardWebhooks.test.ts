import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signStandardWebhook, standardWebhookKey } from './standardWebhooks';

// The specification's own reference vector (its libraries' sign tests).
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

/** A secret in the form issued before Standard Webhooks: `whsec_` + base64url of 32 bytes. */
const legacySecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The same bytes to a lenient decoder, but not the canonical encoding: the unused low bits of the last character set. */
const withPaddingBits = (canonical: string) => canonical.slice(0, 42) + BASE64[BASE64.indexOf(canonical[42]) + 1] + '=';

const headersFor = (id: string, timestamp: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

describe('Standard Webhooks secrets', () => {
  test('new secrets are whsec_ + standard base64 of 32 random key bytes, each different', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhookKey(a)).toEqual(Buffer.from(a.slice('whsec_'.length), 'base64'));
    expect(standardWebhookKey(a)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  test('a secret of the earlier form is keyed with its bytes as written', () => {
    const old = legacySecret();
    expect(standardWebhookKey(old)).toEqual(Buffer.from(old, 'utf8'));
  });

  test.each([
    ['not canonical base64 (43 characters)', `whsec_${'A'.repeat(43)}`],
    ['base64url characters', `whsec_${'-_'.repeat(22)}`],
    ['non-zero padding bits', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx'.replace(/x$/, 'x=').slice(0, 39) + 'Rf='],
    ['too few key bytes', `whsec_${randomBytes(16).toString('base64')}`],
    ['too many key bytes', `whsec_${randomBytes(65).toString('base64')}`],
    ['no prefix', randomBytes(32).toString('base64')],
  ])('anything else is keyed as written: %s', (_what, secret) => {
    expect(standardWebhookKey(secret)).toEqual(Buffer.from(secret, 'utf8'));
  });
});

describe('signStandardWebhook', () => {
  test("matches the specification's reference signature", () => {
    expect(signStandardWebhook({ secrets: [SPEC.secret], id: SPEC.id, timestamp: SPEC.timestamp, body: SPEC.body })).toBe(SPEC.signature);
    expect(signStandardWebhook({ secrets: [SPEC.secret], id: SPEC.id, timestamp: SPEC.timestamp, body: Buffer.from(SPEC.body) })).toBe(
      SPEC.signature,
    );
  });

  test('one v1 per secret, space-separated, newest first; the official library verifies each secret', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const body = '{"id":"evt_1","type":"run.succeeded"}';
    const header = signStandardWebhook({ secrets: [current, previous], id: 'evt_1', timestamp: now, body });
    const parts = header.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(signStandardWebhook({ secrets: [current], id: 'evt_1', timestamp: now, body }));
    expect(parts[1]).toBe(signStandardWebhook({ secrets: [previous], id: 'evt_1', timestamp: now, body }));
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headersFor('evt_1', now, header))).toEqual({ id: 'evt_1', type: 'run.succeeded' });
    }
    expect(() => new Webhook(newWebhookSecret()).verify(body, headersFor('evt_1', now, header))).toThrow('No matching signature');
    expect(() => new Webhook(current).verify(`${body} `, headersFor('evt_1', now, header))).toThrow('No matching signature');
    expect(() => new Webhook(current).verify(body, headersFor('evt_2', now, header))).toThrow('No matching signature');
  });

  test('earlier secrets: the official library verifies them given the raw key (the bytes as written)', () => {
    const old = legacySecret();
    const now = Math.floor(Date.now() / 1000);
    const body = '{"id":"evt_1"}';
    const header = signStandardWebhook({ secrets: [old], id: 'evt_1', timestamp: now, body });
    expect(new Webhook(old, { format: 'raw' }).verify(body, headersFor('evt_1', now, header))).toEqual({ id: 'evt_1' });
    expect(() =>
      new Webhook(old, { format: 'raw' }).verify(
        body,
        headersFor('evt_1', now, signStandardWebhook({ secrets: [legacySecret()], id: 'evt_1', timestamp: now, body })),
      ),
    ).toThrow('No matching signature');
  });

  test('refuses to sign without a secret, with a bad timestamp or an id holding a dot', () => {
    expect(() => signStandardWebhook({ secrets: [], id: 'evt_1', timestamp: 1, body: '' })).toThrow();
    expect(() => signStandardWebhook({ secrets: [SPEC.secret], id: 'evt_1', timestamp: 1.5, body: '' })).toThrow();
    expect(() => signStandardWebhook({ secrets: [SPEC.secret], id: 'evt.1', timestamp: 1, body: '' })).toThrow();
    expect(() => signStandardWebhook({ secrets: [SPEC.secret], id: '', timestamp: 1, body: '' })).toThrow();
  });
});
