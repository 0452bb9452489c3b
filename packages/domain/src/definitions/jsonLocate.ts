/**
 * Finds where a JSON text stops being valid JSON (RFC 8259), with a short reason.
 * `JSON.parse` messages differ between Node versions and do not always carry a
 * position; this gives every syntax error a line and column. Returns null for valid JSON.
 */
export interface JsonSyntaxProblem {
  /** 0-based offset of the offending character (text length at end of input). */
  offset: number;
  line: number;
  column: number;
  reason: string;
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Stop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function locateJsonSyntaxError(s: string): JsonSyntaxProblem | null {
  let i = 0;
  const fail = (reason: string): never => {
    throw new Stop(i, i >= s.length ? 'Unexpected end of input' : reason);
  };
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  };
  const str = () => {
    i++; // opening quote
    for (;;) {
      if (i >= s.length) fail('Unterminated string');
      const c = s[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const e = s[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
            i++;
            fail('Invalid \\u escape in string');
          }
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          i++;
          fail('Invalid escape in string');
        }
        i += 2;
        continue;
      }
      if (c < ' ') fail('Control character in string (use \\n, \\t, …)');
      i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) fail('Nested too deeply');
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (s[i] !== '"') fail('Expected a double-quoted property name');
        str();
        ws();
        if (s[i] !== ':') fail("Expected ':' after property name");
        i++;
        value(depth + 1);
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return;
        }
        fail("Expected ',' or '}' after property value");
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return;
        }
        fail("Expected ',' or ']' after array element");
      }
    }
    if (c === '"') return str();
    for (const lit of ['true', 'false', 'null']) {
      if (s.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(s)) {
      i = NUMBER.lastIndex;
      return;
    }
    fail(`Unexpected character ${JSON.stringify(c)}`);
  };
  try {
    value(0);
    ws();
    if (i < s.length) fail('Unexpected content after the end of the document');
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const { line, column } = lineAndColumn(s, e.offset);
    return { offset: e.offset, line, column, reason: e.reason };
  }
}
