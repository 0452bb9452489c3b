import { parseWebhookSignature, signWebhook, verifyWebhook } from './webhookSignature';

// Reference values computed independently (Python hmac/hashlib) for this exact body and time.
const body = '{"id":"evt_1","type":"run.succeeded"}';
const NEW = '3b15bd12d0d6ad609a7d26fb6be46da61bb54563cdfea48c99dc74d2628ea345';
const OLD = '7ecf12be3f37155a0f2747a8b33796b4e16d33ade97d02e75750544f684f5327';
const t = 1_700_000_000;

describe('signWebhook', () => {
  test('t=…,v1=… with the HMAC of "<t>.<body>" keyed by the whsec_ string as written', () => {
    expect(signWebhook({ secrets: ['whsec_new'], timestamp: t, body })).toBe(`t=${t},v1=${NEW}`);
  });
  test('one v1 per valid secret, newest first', () => {
    expect(signWebhook({ secrets: ['whsec_new', 'whsec_old'], timestamp: t, body })).toBe(`t=${t},v1=${NEW},v1=${OLD}`);
  });
  test('Buffer bodies sign the same bytes', () => {
    expect(signWebhook({ secrets: ['whsec_new'], timestamp: t, body: Buffer.from(body) })).toBe(`t=${t},v1=${NEW}`);
  });
  test('refuses to sign without a secret or with a bad timestamp', () => {
    expect(() => signWebhook({ secrets: [], timestamp: t, body })).toThrow();
    expect(() => signWebhook({ secrets: ['x'], timestamp: 1.5, body })).toThrow();
  });
});

describe('verifyWebhook', () => {
  const header = `t=${t},v1=${NEW},v1=${OLD}`;
  test('accepts either secret during an overlap', () => {
    expect(verifyWebhook({ body, header, secret: 'whsec_new', now: t })).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhook({ body, header, secret: 'whsec_old', now: t + 299 })).toEqual({ ok: true, timestamp: t });
  });
  test('refuses a wrong secret, a changed body and a stale or future timestamp', () => {
    expect(verifyWebhook({ body, header, secret: 'whsec_other', now: t })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifyWebhook({ body: body + ' ', header, secret: 'whsec_new', now: t })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(verifyWebhook({ body, header, secret: 'whsec_new', now: t + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook({ body, header, secret: 'whsec_new', now: t - 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });
  test('a signature for another timestamp does not verify', () => {
    expect(verifyWebhook({ body, header: `t=${t + 1},v1=${NEW}`, secret: 'whsec_new', now: t })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });
  test.each([undefined, '', 'v1=abc', `t=${t}`, `t=abc,v1=${NEW}`, `t=${t},t=${t},v1=${NEW}`, 'garbage'])('malformed: %j', (h) => {
    expect(verifyWebhook({ body, header: h, secret: 'whsec_new', now: t })).toEqual({ ok: false, reason: 'malformed' });
  });
  test('unknown schemes are ignored', () => {
    expect(parseWebhookSignature(`t=${t},v2=zzz,v1=${NEW}`)).toEqual({ timestamp: t, signatures: [NEW] });
  });
});
