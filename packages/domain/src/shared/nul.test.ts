import { holdsUnstorableText, pathOfNul } from './nul';

describe('pathOfNul', () => {
  it('names the first string or key holding U+0000, in document order', () => {
    expect(pathOfNul({ a: ['x', { b: 'y' }], c: 1 }, 'input')).toBeNull();
    expect(pathOfNul({ a: ['x', { b: 'y\u0000' }] }, 'input')).toBe('input.a[1].b');
    expect(pathOfNul({ a: { x: '\u0000' }, 'b\u0000': 1 }, 'input')).toBe('input.a.x');
    expect(pathOfNul({ a: 1, 'b\u0000': { x: '\u0000' } }, 'input')).toBe('input.b\\u0000');
    expect(pathOfNul('\u0000', 'input')).toBe('input');
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    const n = 100_000;
    const deep = JSON.parse('{"a":['.repeat(n) + '"\\u0000"' + ']}'.repeat(n));
    expect(pathOfNul(deep, 'input')).toBe('input' + '.a[0]'.repeat(n));
    expect(pathOfNul(JSON.parse('['.repeat(n) + '"ok"' + ']'.repeat(n)), 'input')).toBeNull();
  });
});

describe('holdsUnstorableText', () => {
  it('finds U+0000 and unpaired surrogates in strings and keys at any depth', () => {
    expect(holdsUnstorableText({ a: ['x', { b: 'y 😀 é' }], c: 1, d: null })).toBe(false);
    expect(holdsUnstorableText({ a: ['x', { b: 'y\u0000' }] })).toBe(true);
    expect(holdsUnstorableText({ 'k\u0000': 1 })).toBe(true);
    expect(holdsUnstorableText(['\ud83d'])).toBe(true);
    expect(holdsUnstorableText(['x\ude00y'])).toBe(true);
    expect(holdsUnstorableText({ ['\ude00\ud83d']: 1 })).toBe(true);
    expect(holdsUnstorableText('\\u0000')).toBe(false);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    const n = 100_000;
    expect(holdsUnstorableText(JSON.parse('['.repeat(n) + '"\\ud800"' + ']'.repeat(n)))).toBe(true);
    expect(holdsUnstorableText(JSON.parse('['.repeat(n) + '"ok"' + ']'.repeat(n)))).toBe(false);
  });
});
