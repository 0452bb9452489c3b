import { exceedsChars } from './jsonSize';

describe('exceedsChars', () => {
  it('says whether a value would be longer than the limit as JSON, roughly', () => {
    expect(exceedsChars({ a: 'x'.repeat(100) }, 200)).toBe(false);
    expect(exceedsChars({ a: 'x'.repeat(300) }, 200)).toBe(true);
    expect(exceedsChars(Array(300).fill(1), 200)).toBe(true);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(exceedsChars(deep, 1_000_000)).toBe(false);
    expect(exceedsChars(deep, 100_000)).toBe(true);
  });
});
