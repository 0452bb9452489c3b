import { WorkspaceGate } from './workspaceGate';

describe('WorkspaceGate', () => {
  const held: Array<() => void> = [];
  const hold = () => new Promise<string>((resolve) => held.push(() => resolve('done')));
  afterEach(() => {
    while (held.length) held.shift()!();
  });

  it("turns a workspace away past its bound and its waiting line, without touching another's", async () => {
    const gate = new WorkspaceGate({ inFlight: 2, waiting: 0, waitMs: 1_000 });
    const a1 = gate.run('ws_a', hold);
    const a2 = gate.run('ws_a', hold);
    await expect(gate.run('ws_a', async () => 'third')).resolves.toBeUndefined();
    await expect(gate.run('ws_b', async () => 'other')).resolves.toBe('other');
    held.shift()!();
    await expect(a1).resolves.toBe('done');
    await expect(gate.run('ws_a', async () => 'again')).resolves.toBe('again');
    held.shift()!();
    await expect(a2).resolves.toBe('done');
  });

  it('hands a freed place to the oldest waiter, in order', async () => {
    const gate = new WorkspaceGate({ inFlight: 1, waiting: 2, waitMs: 5_000 });
    const order: string[] = [];
    const first = gate.run('ws_a', hold);
    const second = gate.run('ws_a', async () => order.push('second'));
    const third = gate.run('ws_a', async () => order.push('third'));
    await expect(gate.run('ws_a', async () => 'fourth')).resolves.toBeUndefined();
    expect(order).toEqual([]);
    held.shift()!();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['second', 'third']);
  });

  it('turns a waiter away when no place came within its wait, and frees its place in the line', async () => {
    const gate = new WorkspaceGate({ inFlight: 1, waiting: 1, waitMs: 20 });
    const first = gate.run('ws_a', hold);
    await expect(gate.run('ws_a', async () => 'late')).resolves.toBeUndefined();
    const waiting = gate.run('ws_a', async () => 'waited');
    held.shift()!();
    await expect(first).resolves.toBe('done');
    await expect(waiting).resolves.toBe('waited');
  });

  it('frees the place of a call that failed', async () => {
    const gate = new WorkspaceGate({ inFlight: 1, waiting: 0, waitMs: 10 });
    await expect(gate.run('ws_a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('ws_a', async () => 'next')).resolves.toBe('next');
  });
});
