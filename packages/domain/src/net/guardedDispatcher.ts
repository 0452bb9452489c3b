import dns from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { AddressPolicy } from './addressPolicy';

/** `code` of the error raised when a destination address is refused by the policy. */
export const SSRF_BLOCKED = 'SSRF_BLOCKED';

export class BlockedAddressError extends Error {
  readonly code = SSRF_BLOCKED;
  readonly hostname: string;
  readonly address: string;
  readonly reason: string;

  /**
   * The message never names an address a host name resolved to: it reaches the run's step error,
   * and would let a tenant map internal DNS. `address` and `reason` stay on the error for operators.
   */
  constructor(hostname: string, address: string, reason: string) {
    super(
      hostname === address
        ? `Refusing to connect to ${address}: ${reason.replace(/_/g, '-')} address`
        : `Refusing to connect to ${hostname}: it resolves to an address outbound requests may not reach`,
    );
    this.name = 'BlockedAddressError';
    this.hostname = hostname;
    this.address = address;
    this.reason = reason;
  }
}

export interface LookupAddress {
  address: string;
  family: number;
}

/** The resolver used by the guard: `dns.lookup(hostname, {all: true, ...})` by default. */
export type ResolveAll = (hostname: string, opts: { family?: number; hints?: number }) => Promise<LookupAddress[]>;

const defaultResolveAll: ResolveAll = (hostname, opts) =>
  dns.promises.lookup(hostname, { all: true, family: opts.family ?? 0, hints: opts.hints, verbatim: true });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` function for `net.connect` / `tls.connect` that resolves every address of
 * the host, refuses the connection if ANY of them is refused by the policy, and hands
 * the (checked) addresses to Node, which connects to one of them. Because the check runs
 * at connect time on the addresses actually used, DNS rebinding cannot slip past it.
 */
export function createGuardedLookup(policy: AddressPolicy, resolveAll: ResolveAll = defaultResolveAll) {
  return function guardedLookup(hostname: string, options: unknown, callback?: unknown): void {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as {
      all?: boolean;
      family?: number | string;
      hints?: number;
    };
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family) || 0;
    resolveAll(hostname, { family, hints: opts.hints }).then(
      (addresses) => {
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          return cb(err, opts.all ? [] : '', 0);
        }
        for (const a of addresses) {
          const verdict = policy.check(a.address);
          if (!verdict.allowed) {
            return cb(new BlockedAddressError(hostname, a.address, verdict.reason ?? 'refused'), opts.all ? [] : '', 0);
          }
        }
        if (opts.all) return cb(null, addresses);
        return cb(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => cb(err, opts.all ? [] : '', 0),
    );
  };
}

export interface GuardedDispatcherOptions {
  policy: AddressPolicy;
  /** TCP + TLS handshake time limit. Default 10 s. */
  connectTimeoutMs?: number;
  /** Extra trust for TLS (e.g. a private CA in tests or self-hosting). */
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  /** Replace DNS resolution (tests, custom resolvers). Default: `dns.lookup` with `all: true`. */
  resolveAll?: ResolveAll;
  /** Keep-alive time for idle sockets. Default 4 s (undici's default). */
  keepAliveTimeoutMs?: number;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * An undici `Agent` that only connects to addresses the policy accepts.
 * - Hostnames: resolved with the guarded lookup (all addresses checked at connect time).
 * - Literal IPs: Node skips `lookup` for them, so they are checked here before connecting.
 * Refusals fail the request with an error whose `code` is `'SSRF_BLOCKED'`.
 */
export function createGuardedDispatcher(opts: GuardedDispatcherOptions): Agent {
  const { policy } = opts;
  const baseConnect = buildConnector({
    timeout: opts.connectTimeoutMs ?? 10_000,
    lookup: createGuardedLookup(policy, opts.resolveAll),
    ...(opts.tls?.ca !== undefined ? { ca: opts.tls.ca } : {}),
    ...(opts.tls?.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.tls.rejectUnauthorized } : {}),
  } as buildConnector.BuildOptions);

  const connect: buildConnector.connector = (options, callback) => {
    const host = stripBrackets(options.hostname);
    if (isIP(host) !== 0) {
      const verdict = policy.check(host);
      if (!verdict.allowed) {
        // Asynchronously, as a real connect failure would be.
        queueMicrotask(() => callback(new BlockedAddressError(host, host, verdict.reason ?? 'refused'), null));
        return;
      }
    }
    return baseConnect(options, callback);
  };

  return new Agent({
    connect,
    connectTimeout: opts.connectTimeoutMs ?? 10_000,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
  });
}
