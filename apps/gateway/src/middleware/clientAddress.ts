import type { Request } from 'express';
import { createCidrMatcher, parseIp, resolveClientIp } from '@svc/domain';

export interface ClientAddresses {
  /** The client's address: the socket peer, or `X-Forwarded-For` read through `TRUSTED_PROXY_CIDRS`. */
  ip(req: Request): string;
  /** The address a rate limit counts: IPv6 per /64 (one subscriber's usual allocation), IPv4 as is. */
  bucket(req: Request): string;
}

export function clientAddresses(trustedProxyCidrs: readonly string[]): ClientAddresses {
  let isTrustedProxy: (ip: string) => boolean;
  try {
    isTrustedProxy = createCidrMatcher(trustedProxyCidrs);
  } catch (err) {
    throw new Error(`Invalid TRUSTED_PROXY_CIDRS: ${(err as Error).message}`);
  }
  const ip = (req: Request) => resolveClientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], isTrustedProxy);
  return {
    ip,
    bucket(req) {
      const address = ip(req);
      const parsed = parseIp(address);
      if (parsed?.kind() !== 'ipv6') return address || 'unknown';
      const parts = (parsed as { parts: number[] }).parts;
      return `${parts
        .slice(0, 4)
        .map((p) => p.toString(16))
        .join(':')}::/64`;
    },
  };
}
