import { isEncodedBody } from '../shared/encodedBody';
import { decodeResponseBody } from './responseBody';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('decodeResponseBody', () => {
  test('JSON is parsed, text is text, in the declared charset', () => {
    expect(decodeResponseBody(bytes('{"a":[1,"é"]}'), 'application/json')).toEqual({ a: [1, 'é'] });
    expect(decodeResponseBody(bytes('{"a":1}'), 'application/problem+json; charset=utf-8')).toEqual({ a: 1 });
    expect(decodeResponseBody(bytes('{not json'), 'application/json')).toBe('{not json');
    expect(decodeResponseBody(bytes('  '), 'application/json')).toBe('  ');
    expect(decodeResponseBody(bytes('héllo 😀'), 'text/plain')).toBe('héllo 😀');
    expect(decodeResponseBody(bytes('{"a":1}'), undefined)).toBe('{"a":1}');
    expect(decodeResponseBody(bytes([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=iso-8859-1')).toBe('café');
    expect(decodeResponseBody(bytes('ok'), 'text/plain; charset=no-such-charset')).toBe('ok');
    expect(decodeResponseBody(Buffer.alloc(0), 'image/png')).toBe('');
  });

  test('bytes that are not valid text are kept as base64 with their content type', () => {
    const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]);
    const body = decodeResponseBody(png, 'image/png');
    expect(body).toEqual({ encoding: 'base64', content_type: 'image/png', data: png.toString('base64') });
    expect(isEncodedBody(body)).toBe(true);
    // Invalid UTF-8 inside a JSON or text response too: nothing is replaced by U+FFFD.
    const broken = bytes('{"a":"', [0xc3, 0x28], '"}');
    expect(decodeResponseBody(broken, 'application/json')).toEqual({
      encoding: 'base64',
      content_type: 'application/json',
      data: broken.toString('base64'),
    });
    expect(decodeResponseBody(bytes([0xff]), undefined)).toEqual({ encoding: 'base64', content_type: null, data: '/w==' });
  });

  test('text holding U+0000 is kept as base64, so PostgreSQL can store it', () => {
    const text = bytes('before\u0000after');
    expect(decodeResponseBody(text, 'text/plain')).toEqual({
      encoding: 'base64',
      content_type: 'text/plain',
      data: text.toString('base64'),
    });
  });

  test('JSON holding U+0000 or an unpaired surrogate anywhere, keys included, is kept as base64', () => {
    for (const json of ['{"a":"x\\u0000"}', '{"a\\u0000":1}', '[[{"deep":["\\u0000"]}]]', '{"a":"\\ud800"}', '{"\\udc00":1}']) {
      const body = decodeResponseBody(bytes(json), 'application/json');
      expect(body).toEqual({ encoding: 'base64', content_type: 'application/json', data: bytes(json).toString('base64') });
      expect(Buffer.from((body as { data: string }).data, 'base64').toString()).toBe(json);
    }
    // An escaped backslash before "u0000" is ordinary text, and a surrogate pair is a character.
    expect(decodeResponseBody(bytes('{"a":"\\\\u0000","b":"\\ud83d\\ude00"}'), 'application/json')).toEqual({ a: '\\u0000', b: '😀' });
  });
});
