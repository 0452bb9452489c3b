import { FairQueue } from './fairQueue';

describe('FairQueue', () => {
  it('serves tenants in turn, each in its own order', () => {
    const q = new FairQueue<string>(10);
    for (const item of ['a1', 'a2', 'a3', 'a4']) q.push('a', item);
    q.push('b', 'b1');
    q.push('b', 'b2');
    q.push('c', 'c1');
    const order = Array.from({ length: q.size }, () => q.shift());
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
  });

  it('puts a tenant that comes back behind those already waiting', () => {
    const q = new FairQueue<string>(10);
    q.push('a', 'a1');
    q.push('b', 'b1');
    expect(q.shift()).toBe('a1');
    q.push('a', 'a2');
    expect([q.shift(), q.shift()]).toEqual(['b1', 'a2']);
  });

  it('refuses an item past the tenant bound, without touching other tenants', () => {
    const q = new FairQueue<number>(2);
    expect(q.push('a', 1)).toBe(true);
    expect(q.push('a', 2)).toBe(true);
    expect(q.push('a', 3)).toBe(false);
    expect(q.push('b', 4)).toBe(true);
    expect(q.waiting('a')).toBe(2);
    expect(q.size).toBe(3);
  });

  it('removes an item that gave up waiting, and forgets an emptied tenant', () => {
    const q = new FairQueue<number>(5);
    q.push('a', 1);
    q.push('b', 2);
    q.push('a', 3);
    expect(q.remove('a', 1)).toBe(true);
    expect(q.remove('a', 1)).toBe(false);
    expect(q.remove('b', 2)).toBe(true);
    expect(q.waiting('b')).toBe(0);
    expect([q.size, q.shift(), q.shift()]).toEqual([1, 3, undefined]);
  });
});
