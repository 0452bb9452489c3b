import dns from 'node:dns';
import { isIP } from 'node:net';

/**
 * A fence for tests that let generated data reach the outbound HTTP code (fuzzing): from now on,
 * name resolution in this process answers only for `localhost` (and `*.localhost`) and IP literals; every other
 * name fails with ENOTFOUND before any DNS query leaves the machine. The outbound guard of the
 * service (packages/domain/src/net/guardedDispatcher.ts) resolves through `dns.promises.lookup` /
 * `dns.lookup`, so webhook deliveries and http steps towards generated host names go nowhere.
 * Literal IP addresses never reach DNS: the service's address policy (OUTBOUND_ALLOW_CIDRS
 * 127.0.0.0/8 at most) still decides those. Returns the refused names and a restore function.
 */
export function confineDnsToLoopback(): { refused: Set<string>; restore(): void } {
  const refused = new Set<string>();
  const isLoopbackName = (host: string) => {
    // IP literals resolve to themselves (no query); the address policy judges them.
    if (isIP(host) !== 0) return true;
    const h = host.toLowerCase().replace(/\.$/, '');
    return h === 'localhost' || h.endsWith('.localhost');
  };
  const notFound = (host: string) => {
    refused.add(host);
    const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host} (tests resolve localhost only)`);
    err.code = 'ENOTFOUND';
    return err;
  };
  const promisesLookup = dns.promises.lookup;
  const callbackLookup = dns.lookup;
  dns.promises.lookup = ((host: string, ...rest: unknown[]) => {
    if (!isLoopbackName(host)) return Promise.reject(notFound(host));
    return (promisesLookup as (...a: unknown[]) => unknown)(host, ...rest);
  }) as typeof dns.promises.lookup;
  dns.lookup = ((host: string, ...rest: unknown[]) => {
    const cb = rest[rest.length - 1] as (err: Error | null, ...a: unknown[]) => void;
    if (!isLoopbackName(host)) {
      process.nextTick(() => cb(notFound(host)));
      return undefined;
    }
    return (callbackLookup as (...a: unknown[]) => unknown)(host, ...rest);
  }) as typeof dns.lookup;
  return {
    refused,
    restore() {
      dns.promises.lookup = promisesLookup;
      dns.lookup = callbackLookup;
    },
  };
}
