import net from 'node:net';

export interface FindFreePortOptions {
  /** Interface to probe (default 127.0.0.1, where the embedded servers listen). */
  host?: string;
  /** Ports already handed out to something that has not bound them yet. */
  avoid?: Iterable<number>;
}

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

function osChosenPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `preferred` when it is free (and not in `avoid`), otherwise a port chosen by the OS.
 * Like every probe, the answer can go stale before the caller binds it.
 */
export async function findFreePort(preferred?: number, options: FindFreePortOptions = {}): Promise<number> {
  const host = options.host ?? '127.0.0.1';
  const avoid = new Set(options.avoid ?? []);
  if (preferred !== undefined && preferred > 0 && !avoid.has(preferred) && (await isPortFree(preferred, host))) {
    return preferred;
  }
  for (let i = 0; i < 20; i++) {
    const port = await osChosenPort(host);
    if (!avoid.has(port)) return port;
  }
  throw new Error(`could not find a free port on ${host}`);
}
