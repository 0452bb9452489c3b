import { AppError } from '../errors';
import { assertJsonDepth, jsonDepthExceeds, MAX_JSON_DEPTH, scanJson } from './jsonDepth';

const nested = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('JSON depth', () => {
  it('accepts exactly 64 levels and refuses 65', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(jsonDepthExceeds('x')).toBe(false);
  });

  it('walks a million levels without overflowing the stack, answering 422 validation_failed', () => {
    const deep = nested(1_000_000);
    let thrown: unknown;
    try {
      assertJsonDepth(deep, 'input');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect([(thrown as AppError).status, (thrown as AppError).code]).toEqual([422, 'validation_failed']);
  });
});

describe('scanJson', () => {
  it('finds U+0000 in a value or a key at any depth, in the same walk as the depth', () => {
    expect(scanJson({ a: [1, 'x', { b: 'y' }] })).toEqual({ tooDeep: false, hasNul: false });
    expect(scanJson({ a: [1, 'x', { b: 'y\u0000' }] })).toEqual({ tooDeep: false, hasNul: true });
    expect(scanJson({ a: { 'k\u0000': 1 } })).toEqual({ tooDeep: false, hasNul: true });
    expect(scanJson('\u0000')).toEqual({ tooDeep: false, hasNul: true });
    expect(scanJson(nested(MAX_JSON_DEPTH + 1)).tooDeep).toBe(true);
  });
});
