import { WorkspaceGate } from './workspaceGate';

describe('WorkspaceGate', () => {
  it("turns a workspace away at its bound, without touching another's, and lets it in again once one ends", async () => {
    const gate = new WorkspaceGate(2);
    const held: Array<() => void> = [];
    const hold = () => new Promise<string>((resolve) => held.push(() => resolve('done')));
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

  it('frees the place of a call that failed', async () => {
    const gate = new WorkspaceGate(1);
    await expect(gate.run('ws_a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('ws_a', async () => 'next')).resolves.toBe('next');
  });
});
