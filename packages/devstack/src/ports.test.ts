import net from 'node:net';
import { findFreePort, isPortFree } from './ports';

function listen(port = 0): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ port, host: '127.0.0.1' }, () => resolve(s));
  });
}
const close = (s: net.Server): Promise<void> => new Promise((r) => s.close(() => r()));

describe('findFreePort', () => {
  it('returns the preferred port when it is free', async () => {
    const free = await findFreePort();
    expect(await findFreePort(free)).toBe(free);
  });

  it('falls back to another free port when the preferred one is taken', async () => {
    const server = await listen();
    const taken = (server.address() as net.AddressInfo).port;
    try {
      expect(await isPortFree(taken)).toBe(false);
      const port = await findFreePort(taken);
      expect(port).not.toBe(taken);
      expect(await isPortFree(port)).toBe(true);
    } finally {
      await close(server);
    }
  });

  it('never returns a port from the avoid list', async () => {
    const a = await findFreePort();
    const b = await findFreePort(a, { avoid: [a] });
    expect(b).not.toBe(a);
    const c = await findFreePort(undefined, { avoid: [a, b] });
    expect([a, b]).not.toContain(c);
  });

  it('returns a bindable port without a preference', async () => {
    const port = await findFreePort();
    const s = await listen(port);
    await close(s);
  });
});
