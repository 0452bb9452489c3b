import { jsonBytes } from '../runs/limits';
import { canonicalJson } from './canonicalJson';

const N = 100_000;
const deepArrays = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n));

/** The values JSON.stringify is the reference for (JSON data, and what JSON.stringify does with the rest). */
const samples: unknown[] = [
  null,
  0,
  -2.5e-7,
  'x"\\\n\u2028é😀',
  true,
  [],
  {},
  [1, 'two', null, [3, { four: 4 }]],
  { b: 1, a: [{ d: 'x', c: null }], é: { '': 0 } },
  { skip: undefined, fn: () => 1, keep: 1, when: new Date(0), nan: NaN, inf: -Infinity },
  [undefined, () => 1, Symbol('s')],
  JSON.parse('{"__proto__": {"x": 1}}'),
];

describe('canonicalJson', () => {
  it('writes what JSON.stringify writes, with keys sorted at every level', () => {
    expect(canonicalJson({ b: { z: 1, y: [{ q: 1, p: 2 }] }, a: 0 })).toBe('{"a":0,"b":{"y":[{"p":2,"q":1}],"z":1}}');
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v && typeof v === 'object' && !(v instanceof Date)
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    for (const v of samples) expect(canonicalJson(v)).toBe(JSON.stringify(sorted(v)));
  });

  it('writes 100,000 levels, where JSON.stringify overflows the stack', () => {
    const deep = deepArrays(N);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(canonicalJson(deep)).toBe('['.repeat(N) + ']'.repeat(N));
    const objects = JSON.parse('{"b":1,"a":'.repeat(N) + 'null' + '}'.repeat(N));
    expect(canonicalJson(objects)).toBe('{"a":'.repeat(N) + 'null' + ',"b":1}'.repeat(N));
  });
});

describe('jsonBytes', () => {
  it('counts the bytes of JSON.stringify', () => {
    for (const v of samples) expect(jsonBytes(v)).toBe(Buffer.byteLength(JSON.stringify(v) ?? ''));
  });
});
