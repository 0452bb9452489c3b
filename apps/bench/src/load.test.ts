import { fnLoad, roundOrder } from './load';

/** A call that takes `ms`, on a real timer. */
const call = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('fnLoad', () => {
  it('stops at its duration when given an amount it does not reach', async () => {
    const r = await fnLoad(call(20), { concurrency: 2, durationSec: 0.2, amount: 10_000 });
    // Two callers of a 20 ms call for 200 ms: about 20 calls, far from the 10,000 cap.
    expect(r.ok).toBeGreaterThan(2);
    expect(r.ok).toBeLessThan(100);
    expect(r.elapsedMs).toBeLessThan(2_000);
  });

  it('stops at its amount when that comes first', async () => {
    const r = await fnLoad(call(1), { concurrency: 3, durationSec: 60, amount: 7 });
    expect(r.ok).toBe(7);
    expect(r.elapsedMs).toBeLessThan(10_000);
  });

  it('runs an amount alone to the end', async () => {
    const r = await fnLoad(call(1), { concurrency: 4, amount: 9 });
    expect(r.ok).toBe(9);
    expect(r.latencies).toHaveLength(9);
  });

  it('with a rate, starts call i no earlier than i / rate seconds: spread evenly, never a burst per second', async () => {
    const starts: number[] = [];
    const before = performance.now();
    const r = await fnLoad(
      async () => {
        starts.push(performance.now());
        await call(1)();
      },
      { concurrency: 5, amount: 10, overallRate: 50 },
    );
    expect(r.ok).toBe(10);
    // 50/s: call i no earlier than i × 20 ms after the load began, however early a timer fires.
    starts.forEach((t, i) => expect(t - before).toBeGreaterThanOrEqual(i * 20));
  });
});

describe('roundOrder', () => {
  const sides = ['a', 'b', 'c', 'd', 'e', 'f'];
  const positions = (rounds: number) => {
    const sequence = Array.from({ length: rounds }, (_, i) => roundOrder(sides, i)).flat();
    return Object.fromEntries(sides.map((s) => [s, sequence.flatMap((x, at) => (x === s ? [at] : []))]));
  };

  it('measures every side once a round', () => {
    for (let i = 0; i < 4; i++) expect([...roundOrder(sides, i)].sort()).toEqual(sides);
  });

  it('reverses the first round in the second, so each side stands on average as late as any other', () => {
    expect([0, 1].map((i) => roundOrder(['a', 'b', 'c'], i).join(''))).toEqual(['abc', 'cba']);
    // Over a pair (or two), a drift in time costs every side the same: equal mean positions.
    for (const rounds of [2, 4]) {
      const means = Object.values(positions(rounds)).map((at) => at.reduce((x, y) => x + y, 0) / at.length);
      expect(new Set(means).size).toBe(1);
    }
  });

  it('starts each pair of rounds one side further on, so no side is always first', () => {
    expect([0, 2, 4].map((i) => roundOrder(sides, i)[0])).toEqual(['a', 'b', 'c']);
    // Two sides take turns going first.
    expect([0, 1, 2, 3].map((i) => roundOrder(['x', 'y'], i).join(''))).toEqual(['xy', 'yx', 'yx', 'xy']);
  });
});
