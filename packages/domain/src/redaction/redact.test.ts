import { REDACTED, redactError, redactHeaders, redactSecrets, redactText, secretPatterns } from './redact';

const SECRET = 'sk_live_abc123XYZ';

describe('redactSecrets', () => {
  test('replaces secrets in strings at any depth, in objects and arrays', () => {
    const value = {
      token: SECRET,
      message: `Bearer ${SECRET} was used`,
      nested: { deeper: [{ x: `pre${SECRET}post` }, 1, true, null, SECRET] },
      untouched: 'nothing to see',
      n: 42,
    };
    expect(redactSecrets(value, [SECRET])).toEqual({
      token: REDACTED,
      message: `Bearer ${REDACTED} was used`,
      nested: { deeper: [{ x: `pre${REDACTED}post` }, 1, true, null, REDACTED] },
      untouched: 'nothing to see',
      n: 42,
    });
  });

  test('every occurrence is replaced, including repeated and adjacent ones', () => {
    expect(redactSecrets(`${SECRET}${SECRET} and ${SECRET}`, [SECRET])).toBe(`${REDACTED} and ${REDACTED}`);
    expect(redactSecrets('aaaa', ['aa'])).toBe(REDACTED);
  });

  test('returns a deep copy and never mutates the input', () => {
    const value = { a: { b: [SECRET] } };
    const out = redactSecrets(value, [SECRET]);
    expect(value.a.b[0]).toBe(SECRET);
    expect(out).not.toBe(value);
    expect(out.a).not.toBe(value.a);
    const clean = { a: { b: ['x'] } };
    const copy = redactSecrets(clean, [SECRET]);
    expect(copy).toEqual(clean);
    expect(copy.a).not.toBe(clean.a);
  });

  test('secrets in object keys are redacted', () => {
    expect(redactSecrets({ [SECRET]: 1, [`key-${SECRET}`]: { [SECRET]: SECRET } }, [SECRET])).toEqual({
      [REDACTED]: 1,
      [`key-${REDACTED}`]: { [REDACTED]: REDACTED },
    });
  });

  test('longest secret first: a secret containing another is removed whole', () => {
    expect(redactSecrets('password123 and password', ['password', 'password123'])).toBe(`${REDACTED} and ${REDACTED}`);
    expect(redactSecrets('xx-password123-xx', ['pass', 'password123'])).toBe(`xx-${REDACTED}-xx`);
  });

  test('overlapping secrets leave no fragment of either', () => {
    // "abcdef" and "defghi" overlap in "abcdefghi": sequential replacement would leave "ghi".
    expect(redactSecrets('abcdefghi!', ['abcdef', 'defghi'])).toBe(`${REDACTED}!`);
    expect(redactSecrets('xxabcdefghiyy', ['defghi', 'abcdef'])).toBe(`xx${REDACTED}yy`);
  });

  test('self-overlapping occurrences are merged', () => {
    expect(redactSecrets('abababa', ['aba'])).toBe(REDACTED);
  });

  test('JSON-in-string: escaped forms of a secret are found', () => {
    const secret = 'p@ss"word\\with\nstuff';
    const body = JSON.stringify({ password: secret });
    expect(body).not.toContain(secret); // the raw form does not occur…
    const out = redactSecrets({ body }, [secret]);
    expect(out.body).toBe(`{"password":"${REDACTED}"}`);
    expect(JSON.parse(out.body)).toEqual({ password: REDACTED });
  });

  test('doubly nested JSON strings are covered too', () => {
    const secret = 'quo"te';
    const inner = JSON.stringify({ s: secret });
    const outer = JSON.stringify({ inner });
    const out = redactSecrets(outer, [secret]);
    expect(out).not.toContain('quo');
    expect(JSON.parse(JSON.parse(out).inner)).toEqual({ s: REDACTED });
  });

  test('ASCII-escaped JSON (\\uXXXX) and URL-encoded forms are found', () => {
    const secret = 'clé secrète/+&=';
    const asciiJson = '{"k":"cl\\u00e9 secr\\u00e8te/+&="}';
    expect(redactSecrets(asciiJson, [secret])).toBe(`{"k":"${REDACTED}"}`);
    const url = `https://x.example/cb?token=${encodeURIComponent(secret)}&a=1`;
    expect(redactSecrets(url, [secret])).toBe(`https://x.example/cb?token=${REDACTED}&a=1`);
  });

  test('short secrets (< 4 chars) are still redacted; empty ones are ignored', () => {
    expect(redactSecrets('pin=123; id=9123', ['123'])).toBe(`pin=${REDACTED}; id=9${REDACTED}`);
    expect(redactSecrets('a-b', ['-'])).toBe(`a${REDACTED}b`);
    expect(redactSecrets('unchanged', [''])).toBe('unchanged');
    expect(redactSecrets('unchanged', [null as unknown as string, undefined as unknown as string, 5 as unknown as string])).toBe(
      'unchanged',
    );
  });

  test('is idempotent: existing [REDACTED] markers are not mangled', () => {
    const once = redactSecrets('key=ACT and ACT', ['ACT']);
    expect(once).toBe(`key=${REDACTED} and ${REDACTED}`);
    expect(redactSecrets(once, ['ACT'])).toBe(once);
    expect(redactSecrets(`${REDACTED} x`, ['RED'])).toBe(`${REDACTED} x`);
  });

  test('no secrets: an equal deep copy', () => {
    const v = { a: [1, { b: 'c' }] };
    expect(redactSecrets(v, [])).toEqual(v);
    expect(redactSecrets(v, [])).not.toBe(v);
  });

  test('primitives pass through', () => {
    expect(redactSecrets(5, [SECRET])).toBe(5);
    expect(redactSecrets(null, [SECRET])).toBeNull();
    expect(redactSecrets(undefined, [SECRET])).toBeUndefined();
    expect(redactSecrets(true, [SECRET])).toBe(true);
  });

  test('cycles do not loop forever', () => {
    const a: Record<string, unknown> = { s: SECRET };
    a.self = a;
    const out = redactSecrets(a, [SECRET]) as Record<string, unknown>;
    expect(out.s).toBe(REDACTED);
    expect(out.self).toBe(out);
  });

  test('"__proto__" keys stay own data, no prototype pollution', () => {
    const value = JSON.parse(`{"__proto__": {"polluted": "${SECRET}"}}`);
    const out = redactSecrets(value, [SECRET]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(out['__proto__']).toEqual({ polluted: REDACTED });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('Error objects and Buffers are redacted too', () => {
    const err = new Error(`failed with ${SECRET}`);
    const out = redactSecrets({ err }, [SECRET]).err;
    expect(out).toBeInstanceOf(Error);
    expect(out.message).toBe(`failed with ${REDACTED}`);
    expect(out.stack).not.toContain(SECRET);
    expect(err.message).toContain(SECRET);
    const buf = redactSecrets(Buffer.from(`x${SECRET}x`), [SECRET]);
    expect(buf.toString()).toBe(`x${REDACTED}x`);
  });

  test('walks 100,000 levels without overflowing the stack, keeping order and shape', () => {
    // {"a": {"a": … {"a": ["<secret>", 1]} … }}, as an http step's receiver could answer.
    const n = 100_000;
    const deep = JSON.parse('{"a":'.repeat(n) + `["${SECRET}",1]` + '}'.repeat(n));
    let out = redactSecrets(deep, [SECRET]) as Record<string, unknown>;
    expect(out).not.toBe(deep);
    for (let i = 0; i < n; i++) out = out.a as Record<string, unknown>;
    expect(out).toEqual([REDACTED, 1]);
  });

  test('handles many secrets and large payloads', () => {
    const secrets = Array.from({ length: 50 }, (_, i) => `secret-value-${i}-${'z'.repeat(i)}`);
    const text = (secrets.join(' | ') + ' | ').repeat(20);
    const out = redactSecrets({ text }, secrets).text;
    for (const s of secrets) expect(out).not.toContain(s);
    expect(out.split(REDACTED).length - 1).toBe(50 * 20);
  });
});

describe('secretPatterns', () => {
  test('longest first, deduplicated, escaped variants included', () => {
    const p = secretPatterns(['ab', 'a"b', 'ab']);
    expect(p).toEqual(expect.arrayContaining(['ab', 'a"b', 'a\\"b', 'a\\\\\\"b', 'a%22b']));
    for (let i = 1; i < p.length; i++) expect(p[i - 1].length).toBeGreaterThanOrEqual(p[i].length);
    expect(new Set(p).size).toBe(p.length);
  });
});

describe('redactError / redactText', () => {
  test('redacts secrets inside messages', () => {
    expect(redactError(`401 from https://api.example.com/?key=${SECRET}`, [SECRET])).toBe(
      `401 from https://api.example.com/?key=${REDACTED}`,
    );
    expect(redactText('nothing', [SECRET])).toBe('nothing');
    expect(redactError(undefined as unknown as string, [SECRET])).toBe('');
  });
});

describe('redactHeaders', () => {
  test('credential headers are redacted, case-insensitively; others kept', () => {
    const out = redactHeaders({
      Authorization: 'Bearer abc',
      cookie: 'a=b',
      'Set-Cookie': ['a=1', 'b=2'],
      'X-API-KEY': 'k',
      'proxy-authorization': 'Basic xyz',
      'content-type': 'application/json',
      'x-request-id': 'r1',
    });
    expect(out).toEqual({
      Authorization: REDACTED,
      cookie: REDACTED,
      'Set-Cookie': REDACTED,
      'X-API-KEY': REDACTED,
      'proxy-authorization': REDACTED,
      'content-type': 'application/json',
      'x-request-id': 'r1',
    });
  });

  test('does not mutate the input; absent values stay absent', () => {
    const h = { authorization: 'Bearer x', other: undefined as unknown };
    const out = redactHeaders(h);
    expect(h.authorization).toBe('Bearer x');
    expect(out.other).toBeUndefined();
  });

  test('extra header names can be added', () => {
    expect(redactHeaders({ 'X-Svc-Secret': 's', 'x-other': 'o' }, ['x-svc-secret'])).toEqual({ 'X-Svc-Secret': REDACTED, 'x-other': 'o' });
  });

  test('near-miss names are not redacted', () => {
    expect(redactHeaders({ 'x-authorization-hint': 'h', cookies: 'c' })).toEqual({ 'x-authorization-hint': 'h', cookies: 'c' });
  });
});

describe('bytes', () => {
  test('a body kept as base64 is redacted byte for byte, the other bytes unchanged', () => {
    const raw = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from(`token=${SECRET}\u0000`), Buffer.from([0x80])]);
    const body = { encoding: 'base64', content_type: 'application/octet-stream', data: raw.toString('base64') };
    const out = redactSecrets({ body }, [SECRET]).body;
    const expected = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from(`token=${REDACTED}\u0000`), Buffer.from([0x80])]);
    expect(out).toEqual({ encoding: 'base64', content_type: 'application/octet-stream', data: expected.toString('base64') });
    // Without a secret in it, the same data, even when it is not canonical base64.
    const other = { encoding: 'base64', content_type: null, data: 'not base64!' };
    expect(redactSecrets(other, [SECRET])).toEqual(other);
  });

  test('a secret with non-ASCII characters is found in bytes by its UTF-8 encoding', () => {
    const secret = 'clé-secrète';
    const raw = Buffer.concat([Buffer.from([0xc3]), Buffer.from(` ${secret} `), Buffer.from([0xff])]);
    const out = redactSecrets(raw, [secret]);
    expect(out).toEqual(Buffer.concat([Buffer.from([0xc3]), Buffer.from(` ${REDACTED} `), Buffer.from([0xff])]));
  });
});
