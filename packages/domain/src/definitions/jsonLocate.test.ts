import { lineAndColumn, locateJsonSyntaxError } from './jsonLocate';

describe('locateJsonSyntaxError', () => {
  test.each(['{}', '[]', '{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]}', '  \n"str"\n ', '0', '{"nested": {"deep": [[[]]]}}'])(
    'valid JSON %j → null (and JSON.parse agrees)',
    (text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(locateJsonSyntaxError(text)).toBeNull();
    },
  );

  test.each([
    ['{\n  "name": "x",\n  "slug": }', 3, 11, /Unexpected character "}"/],
    ['{"a":1,}', 1, 8, /double-quoted property name/],
    ['[1,2', 1, 5, /Unexpected end of input/],
    ['{"a" 1}', 1, 6, /Expected ':'/],
    ['{"a": 1} x', 1, 10, /Unexpected content after/],
    ["{'a': 1}", 1, 2, /double-quoted/],
    ['{"a": 01}', 1, 8, /Expected ',' or '}'/],
    ['{"a": "x\ny"}', 1, 9, /Control character/],
    ['{"a": "\\q"}', 1, 9, /Invalid escape/],
    ['{"a": "\\u12"}', 1, 9, /Invalid \\u escape/],
    ['{"a": tru}', 1, 7, /Unexpected character "t"/],
    ['', 1, 1, /Unexpected end of input/],
    ['{"a": NaN}', 1, 7, /Unexpected character "N"/],
  ])('%j → line %d, column %d', (text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    const p = locateJsonSyntaxError(text);
    expect(p).not.toBeNull();
    expect({ line: p!.line, column: p!.column }).toEqual({ line, column });
    expect(p!.reason).toMatch(reason);
  });

  test('deep nesting is refused without overflowing the stack', () => {
    const p = locateJsonSyntaxError('['.repeat(5000));
    expect(p?.reason).toBe('Nested too deeply');
  });

  test('lineAndColumn', () => {
    expect(lineAndColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd', 3)).toEqual({ line: 2, column: 1 });
    expect(lineAndColumn('ab\ncd', 5)).toEqual({ line: 2, column: 3 });
  });
});
