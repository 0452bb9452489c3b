import { workspaceLimits } from '@svc/domain';
import { KeyLeases } from './keyLeases';

const T0 = 1_000_000;
const END = T0 + 60_000;
const counter = (quota: number, points: number, expire = END) => ({ quota, points, expire });
const pro = workspaceLimits({ plan: 'pro', rateLimitPerMin: null, concurrency: null }); // 600 / 1,200

describe('KeyLeases', () => {
  it('counts a key it has not seen one request at a time', () => {
    const leases = new KeyLeases(64);
    expect(leases.claim('k', T0)).toBeNull();
    expect(leases.sizeFor('k', T0)).toBe(1);
  });

  it('doubles the lease while each is used up within a second, up to the maximum', () => {
    const leases = new KeyLeases(16);
    const sizes: number[] = [];
    let points = 0;
    for (let t = T0; sizes.length < 7; t += 10) {
      if (leases.claim('k', t)) continue;
      const n = leases.sizeFor('k', t);
      sizes.push(n);
      points += n;
      leases.keep('k', n - 1, counter(600, points), counter(1200, points), t);
    }
    expect(sizes).toEqual([1, 1, 2, 4, 8, 16, 16]);
  });

  it('serves a lease one point per request, reporting the counts as if each were counted on its own', () => {
    const leases = new KeyLeases(64);
    leases.keep('k', 3, counter(600, 10), counter(1200, 20), T0);
    const seen: number[] = [];
    for (let lease = leases.claim('k', T0); lease; lease = leases.claim('k', T0)) {
      expect(lease.fits(pro)).toBe(true);
      seen.push(lease.key.points, lease.workspace.points);
    }
    expect(seen).toEqual([8, 18, 9, 19, 10, 20]);
  });

  it('takes at most 1/8 of what is left of either figure, so a key near its figure is counted request by request', () => {
    const leases = new KeyLeases(64);
    leases.keep('k', 0, counter(600, 100), counter(1200, 100), T0);
    leases.keep('k', 0, counter(600, 101), counter(1200, 101), T0 + 1);
    leases.keep('k', 0, counter(600, 102), counter(1200, 102), T0 + 2);
    expect(leases.sizeFor('k', T0 + 3)).toBe(4);
    leases.keep('k', 0, counter(600, 590), counter(1200, 590), T0 + 4);
    expect(leases.sizeFor('k', T0 + 5)).toBe(1);
    // The workspace's figure caps it too.
    leases.keep('k', 0, counter(600, 10), counter(1200, 1190), T0 + 6);
    expect(leases.sizeFor('k', T0 + 7)).toBe(1);
    // A window that has ended left the whole figure.
    expect(leases.sizeFor('k', END + 1)).toBe(16);
  });

  it('never serves a lease within a second of the end of either window, nor across windows', () => {
    const leases = new KeyLeases(64);
    leases.keep('k', 5, counter(600, 10), counter(1200, 10, END - 30_000), T0);
    expect(leases.claim('k', END - 31_500)).not.toBeNull();
    expect(leases.claim('k', END - 30_500)).toBeNull();
    // Points of an earlier window are void once the counters are in a new one.
    leases.keep('k', 2, counter(600, 3, END + 60_000), counter(1200, 3, END + 60_000), END + 5);
    const claims = [leases.claim('k', END + 10), leases.claim('k', END + 10), leases.claim('k', END + 10)];
    expect(claims.map((c) => c?.key.points ?? null)).toEqual([2, 3, null]);
  });

  it('keeps the latest counts when concurrent answers arrive out of order, and adds their spare points', () => {
    const leases = new KeyLeases(64);
    leases.keep('k', 3, counter(600, 20), counter(1200, 40), T0);
    leases.keep('k', 3, counter(600, 16), counter(1200, 36), T0 + 1);
    const first = leases.claim('k', T0 + 2);
    // 6 points are left of the 20 taken: 14 served, this request the 15th.
    expect(first?.key.points).toBe(15);
    expect(first?.workspace.points).toBe(35);
  });

  it('voids a lease taken under other figures, and one dropped', () => {
    const leases = new KeyLeases(64);
    leases.keep('k', 5, counter(600, 10), counter(1200, 10), T0);
    const lease = leases.claim('k', T0);
    expect(lease?.fits(workspaceLimits({ plan: 'basic', rateLimitPerMin: null, concurrency: null }))).toBe(false);
    leases.drop('k');
    expect(leases.claim('k', T0)).toBeNull();
  });

  it('with a maximum of 1 counts every request on its own', () => {
    const leases = new KeyLeases(1);
    for (let t = T0; t < T0 + 10; t++) {
      expect(leases.claim('k', t)).toBeNull();
      expect(leases.sizeFor('k', t)).toBe(1);
      leases.keep('k', 0, counter(600, t - T0 + 1), counter(1200, t - T0 + 1), t);
    }
  });
});
