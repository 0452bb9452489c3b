import { createHmac } from 'node:crypto';
import { AppError } from '../errors';
import { createCidrMatcher } from '../net/addressPolicy';
import {
  canonicalIp,
  computeTriggerSignature,
  declaredLengthExceeds,
  ipAllowed,
  missingRequiredHeader,
  parseTriggerBody,
  resolveClientIp,
  secretMatches,
  signatureMatches,
  TRIGGER_BODY_LIMIT,
  verifyTriggerRequest,
} from './checks';
import type { TriggerCredentials, TriggerRequest } from './checks';

const SIGNING = 'tsig_signing-secret';
const SECRET = 'tsec_shared-secret';
const json = { 'content-type': 'application/json' };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

describe('declaredLengthExceeds', () => {
  it('accepts exactly 256 KB and refuses one byte more', () => {
    expect(TRIGGER_BODY_LIMIT).toBe(262144);
    expect(declaredLengthExceeds(undefined)).toBe(false);
    expect(declaredLengthExceeds('0')).toBe(false);
    expect(declaredLengthExceeds('262144')).toBe(false);
    expect(declaredLengthExceeds('262145')).toBe(true);
    expect(declaredLengthExceeds('99999999999999999999')).toBe(true);
  });
});

describe('canonicalIp / resolveClientIp', () => {
  const none = () => false;
  const proxies = createCidrMatcher(['10.0.0.0/8', 'fd00::/8']);

  it('reports IPv4-mapped IPv6 peers as IPv4', () => {
    expect(canonicalIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalIp('::1')).toBe('::1');
    expect(canonicalIp('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('uses the socket address and ignores X-Forwarded-For without trusted proxies', () => {
    expect(resolveClientIp('203.0.113.9', '1.2.3.4', none)).toBe('203.0.113.9');
    expect(resolveClientIp('::ffff:203.0.113.9', undefined, none)).toBe('203.0.113.9');
    expect(resolveClientIp(undefined, '1.2.3.4', none)).toBe('');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(resolveClientIp('203.0.113.9', '1.2.3.4', proxies)).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For right to left behind trusted proxies', () => {
    expect(resolveClientIp('10.0.0.1', '1.2.3.4', proxies)).toBe('1.2.3.4');
    // a spoofed left part is never reached: the first untrusted hop from the right wins
    expect(resolveClientIp('10.0.0.1', '9.9.9.9, 1.2.3.4, 10.0.0.7', proxies)).toBe('1.2.3.4');
    expect(resolveClientIp('::ffff:10.0.0.1', ['5.6.7.8', '10.1.1.1'], proxies)).toBe('5.6.7.8');
    expect(resolveClientIp('fd00::5', '2001:db8::7', proxies)).toBe('2001:db8::7');
    expect(resolveClientIp('10.0.0.1', '1.2.3.4:5678', proxies)).toBe('1.2.3.4');
    expect(resolveClientIp('10.0.0.1', '[2001:db8::7]:443', proxies)).toBe('2001:db8::7');
    // all hops trusted: the leftmost
    expect(resolveClientIp('10.0.0.1', '10.0.0.3, 10.0.0.2', proxies)).toBe('10.0.0.3');
    // empty header: the peer
    expect(resolveClientIp('10.0.0.1', ' , ', proxies)).toBe('10.0.0.1');
  });

  it('fails closed on an unparsable hop', () => {
    const ip = resolveClientIp('10.0.0.1', '1.2.3.4, unknown', proxies);
    expect(ip).toBe('unknown');
    expect(ipAllowed(['0.0.0.0/0', '::/0'], ip)).toBe(false);
  });
});

describe('ipAllowed', () => {
  it('lets everything through an empty allowlist', () => {
    expect(ipAllowed([], '203.0.113.9')).toBe(true);
    expect(ipAllowed([], '')).toBe(true);
  });
  it('matches IPv4 and IPv6 CIDRs, including IPv4-mapped addresses', () => {
    const list = ['192.0.2.0/24', '2001:db8::/32'];
    expect(ipAllowed(list, '192.0.2.200')).toBe(true);
    expect(ipAllowed(list, '::ffff:192.0.2.200')).toBe(true);
    expect(ipAllowed(list, '192.0.3.1')).toBe(false);
    expect(ipAllowed(list, '2001:db8:1::1')).toBe(true);
    expect(ipAllowed(list, '2001:db9::1')).toBe(false);
    expect(ipAllowed(list, '')).toBe(false);
  });
});

describe('missingRequiredHeader', () => {
  const required = { 'x-source': null, 'x-env': 'prod' };
  it('passes when every header is present with the right value', () => {
    expect(missingRequiredHeader(required, { 'x-source': '', 'x-env': 'prod' })).toBeNull();
    expect(missingRequiredHeader({}, {})).toBeNull();
  });
  it('names the first header that is missing or wrong', () => {
    expect(missingRequiredHeader(required, { 'x-env': 'prod' })).toBe('x-source');
    expect(missingRequiredHeader(required, { 'x-source': 'a', 'x-env': 'Prod' })).toBe('x-env');
    expect(missingRequiredHeader(required, { 'x-source': 'a', 'x-env': 'prod ' })).toBe('x-env');
    expect(missingRequiredHeader(required, { 'x-source': 'a' })).toBe('x-env');
  });
});

describe('secretMatches', () => {
  it('needs the exact secret', () => {
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches(SECRET, undefined)).toBe(false);
    expect(secretMatches(SECRET, '')).toBe(false);
    expect(secretMatches(SECRET, SECRET + 'x')).toBe(false);
    expect(secretMatches(SECRET, SECRET.slice(0, -1))).toBe(false);
    expect(secretMatches(SECRET, [SECRET, SECRET])).toBe(false);
  });
});

describe('signatureMatches', () => {
  const body = Buffer.from('{"a": 1,  "b":"é"}');
  const good = createHmac('sha256', SIGNING).update(body).digest('hex');

  it('is the lowercase hex HMAC-SHA256 of the raw bytes', () => {
    expect(computeTriggerSignature(SIGNING, body)).toBe(good);
    expect(signatureMatches(SIGNING, body, good)).toBe(true);
    expect(signatureMatches(SIGNING, body, `sha256=${good}`)).toBe(true);
  });

  it('refuses anything else', () => {
    expect(signatureMatches(SIGNING, body, undefined)).toBe(false);
    expect(signatureMatches(SIGNING, body, '')).toBe(false);
    expect(signatureMatches(SIGNING, body, good.toUpperCase())).toBe(false);
    expect(signatureMatches(SIGNING, body, `SHA256=${good}`)).toBe(false);
    expect(signatureMatches(SIGNING, body, `sha1=${good}`)).toBe(false);
    expect(signatureMatches(SIGNING, body, good.slice(0, -1))).toBe(false);
    expect(signatureMatches('other', body, good)).toBe(false);
    // the same JSON value, re-serialized: not the bytes that were signed
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(signatureMatches(SIGNING, reserialized, good)).toBe(false);
  });
});

describe('parseTriggerBody', () => {
  it('returns the object', () => {
    expect(parseTriggerBody(json, Buffer.from('{"x":[1,2]}'))).toEqual({ x: [1, 2] });
    expect(parseTriggerBody({ 'content-type': 'Application/JSON; charset=UTF-8' }, Buffer.from('{}'))).toEqual({});
    expect(parseTriggerBody(json, Buffer.from('\ufeff{"bom":true}'))).toEqual({ bom: true });
  });
  it('answers 415 for another media type, charset or a content encoding', () => {
    expect(codeOf(() => parseTriggerBody({}, Buffer.from('{}')))).toBe('unsupported_media_type');
    expect(codeOf(() => parseTriggerBody({ 'content-type': 'text/plain' }, Buffer.from('{}')))).toBe('unsupported_media_type');
    expect(codeOf(() => parseTriggerBody({ 'content-type': 'application/json; charset=latin1' }, Buffer.from('{}')))).toBe(
      'unsupported_media_type',
    );
    expect(codeOf(() => parseTriggerBody({ ...json, 'content-encoding': 'gzip' }, Buffer.from('{}')))).toBe('unsupported_media_type');
  });
  it('answers 400 invalid_json for malformed JSON or bad UTF-8, invalid_request for a non-object', () => {
    expect(codeOf(() => parseTriggerBody(json, Buffer.from('{"a":')))).toBe('invalid_json');
    expect(codeOf(() => parseTriggerBody(json, Buffer.alloc(0)))).toBe('invalid_json');
    expect(codeOf(() => parseTriggerBody(json, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])))).toBe('invalid_json');
    for (const v of ['[]', 'null', '1', '"s"', 'true'])
      expect(codeOf(() => parseTriggerBody(json, Buffer.from(v)))).toBe('invalid_request');
  });
});

describe('verifyTriggerRequest', () => {
  const body = Buffer.from('{"n":1}');
  const sig = createHmac('sha256', SIGNING).update(body).digest('hex');
  const both: TriggerCredentials = {
    secrets: [SECRET],
    signingSecrets: [SIGNING],
    settings: { secret: true, signature: true, ip_allowlist: ['192.0.2.0/24'], required_headers: { 'x-env': 'prod' } },
  };
  const good: TriggerRequest = {
    ip: '192.0.2.1',
    headers: { ...json, 'x-env': 'prod', 'x-svc-secret': SECRET, 'x-svc-signature': sig },
    rawBody: body,
  };

  it('returns the input when everything holds', () => {
    expect(verifyTriggerRequest(both, good)).toEqual({ n: 1 });
  });

  it('checks in the contract order: ip, headers, secret, signature, body', () => {
    const bad: TriggerRequest = { ip: '198.51.100.1', headers: { 'content-type': 'text/plain' }, rawBody: Buffer.from('[') };
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('ip_not_allowed');
    bad.ip = good.ip;
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('required_header_missing');
    bad.headers['x-env'] = 'prod';
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('invalid_trigger_secret');
    bad.headers['x-svc-secret'] = SECRET;
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('invalid_trigger_signature');
    bad.headers['x-svc-signature'] = createHmac('sha256', SIGNING).update(bad.rawBody).digest('hex');
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('unsupported_media_type');
    bad.headers['content-type'] = 'application/json';
    expect(codeOf(() => verifyTriggerRequest(both, bad))).toBe('invalid_json');
  });

  it('checks only the modes the trigger uses', () => {
    const secretOnly = { ...both, settings: { ...both.settings, signature: false } };
    expect(verifyTriggerRequest(secretOnly, { ...good, headers: { ...good.headers, 'x-svc-signature': 'junk' } })).toEqual({ n: 1 });
    const sigOnly = { ...both, settings: { ...both.settings, secret: false } };
    expect(verifyTriggerRequest(sigOnly, { ...good, headers: { ...good.headers, 'x-svc-secret': 'junk' } })).toEqual({ n: 1 });
    expect(codeOf(() => verifyTriggerRequest(sigOnly, { ...good, headers: { ...good.headers, 'x-svc-signature': undefined } }))).toBe(
      'invalid_trigger_signature',
    );
  });

  it('accepts any secret and signing secret in force (a rotation overlap), and nothing else', () => {
    const NEW_SECRET = 'tsec_new';
    const NEW_SIGNING = 'tsig_new';
    const rotated = { ...both, secrets: [NEW_SECRET, SECRET], signingSecrets: [NEW_SIGNING, SIGNING] };
    const newSig = createHmac('sha256', NEW_SIGNING).update(body).digest('hex');
    for (const [secret, signature] of [
      [SECRET, sig],
      [NEW_SECRET, newSig],
      [SECRET, newSig],
      [NEW_SECRET, sig],
    ]) {
      expect(
        verifyTriggerRequest(rotated, { ...good, headers: { ...good.headers, 'x-svc-secret': secret, 'x-svc-signature': signature } }),
      ).toEqual({
        n: 1,
      });
    }
    // Once only the new pair is in force, the old one is refused.
    const after = { ...both, secrets: [NEW_SECRET], signingSecrets: [NEW_SIGNING] };
    expect(codeOf(() => verifyTriggerRequest(after, good))).toBe('invalid_trigger_secret');
    expect(codeOf(() => verifyTriggerRequest(after, { ...good, headers: { ...good.headers, 'x-svc-secret': NEW_SECRET } }))).toBe(
      'invalid_trigger_signature',
    );
  });

  it('never puts a secret or signature in an error message', () => {
    for (const headers of [
      { ...good.headers, 'x-svc-secret': 'nope' },
      { ...good.headers, 'x-svc-signature': 'f'.repeat(64) },
    ]) {
      try {
        verifyTriggerRequest(both, { ...good, headers });
        throw new Error('expected a refusal');
      } catch (err) {
        const text = JSON.stringify({ m: (err as Error).message, e: (err as AppError).errors });
        for (const s of [SECRET, SIGNING, sig, 'nope']) expect(text).not.toContain(s);
      }
    }
  });
});
