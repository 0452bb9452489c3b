import { fnLoad } from './load';

/** A call that takes `ms`, on a real timer. */
const call = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('fnLoad', () => {
  it('stops at its amount, or at its duration, whichever comes first', async () => {
    expect((await fnLoad(call(1), { concurrency: 3, seconds: 60, amount: 7 })).ok).toBe(7);
    const timed = await fnLoad(call(20), { concurrency: 2, seconds: 0.2, amount: 10_000 });
    expect(timed.ok).toBeGreaterThan(2);
    expect(timed.ok).toBeLessThan(100);
  });

  it('stops once its signal is aborted', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const r = await fnLoad(call(5), { concurrency: 2, signal: stop.signal });
    expect(r.ok).toBeGreaterThan(0);
    expect(r.elapsedMs).toBeLessThan(5_000);
  });

  it('with a rate, starts call i no earlier than i / rate seconds: evenly spaced, never a burst', async () => {
    const starts: number[] = [];
    const before = performance.now();
    const r = await fnLoad(
      async () => {
        starts.push(performance.now());
        await call(1)();
      },
      { concurrency: 5, amount: 10, rate: 50 },
    );
    expect(r.ok).toBe(10);
    starts.forEach((t, i) => expect(t - before).toBeGreaterThanOrEqual(i * 20));
  });

  it('counts a call that throws as failed, by its message', async () => {
    let i = 0;
    const r = await fnLoad(
      async () => {
        if (i++ % 2) throw new Error('HTTP 429 rate_limited');
      },
      { concurrency: 1, amount: 4 },
    );
    expect([r.ok, r.failed, r.errors]).toEqual([2, 2, { 'HTTP 429 rate_limited': 2 }]);
  });
});
