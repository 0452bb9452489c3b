import { fnLoad } from './load';

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
    const r = await fnLoad(
      async () => {
        starts.push(performance.now());
        await call(1)();
      },
      { concurrency: 5, amount: 10, overallRate: 50 },
    );
    expect(r.ok).toBe(10);
    // 50/s: one call every 20 ms (a timer may fire a millisecond early, never a whole step).
    starts.forEach((t, i) => expect(t - starts[0]).toBeGreaterThanOrEqual(i * 20 - 2));
  });
});
