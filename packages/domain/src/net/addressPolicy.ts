import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which outbound destinations are acceptable.
 *
 * `classifyAddress` says why an address is not an ordinary public Internet address.
 * IPv6 is handled as an allowlist: only global unicast (2000::/3) can be public, and
 * within it the special-purpose blocks below are refused. Addresses that embed an
 * IPv4 address (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are
 * judged by the embedded IPv4 address.
 */
export type AddressClass =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique_local'
  | 'site_local'
  | 'ipv4_compatible'
  | 'teredo'
  | 'nat64_local';

export type RefusalReason = Exclude<AddressClass, 'public'>;

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Range<T> = [string, T, number, RefusalReason];

function v4(cidr: string, reason: RefusalReason): Range<IPv4> {
  const [addr, bits] = ipaddr.IPv4.parseCIDR(cidr);
  return [cidr, addr, bits, reason];
}
function v6(cidr: string, reason: RefusalReason): Range<IPv6> {
  const [addr, bits] = ipaddr.IPv6.parseCIDR(cidr);
  return [cidr, addr, bits, reason];
}

/** Checked in order: the first match wins (so metadata before link-local). */
const IPV4_RANGES: Range<IPv4>[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OCI, DigitalOcean…
  v4('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link_local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'documentation'), // TEST-NET-1
  v4('192.88.99.0/24', 'reserved'), // 6to4 relay anycast (deprecated)
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'), // TEST-NET-2
  v4('203.0.113.0/24', 'documentation'), // TEST-NET-3
  v4('224.0.0.0/4', 'multicast'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('240.0.0.0/4', 'reserved'),
];

const IPV6_RANGES: Range<IPv6>[] = [
  v6('fd00:ec2::254/128', 'metadata'), // AWS IMDS over IPv6
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::/96', 'ipv4_compatible'), // deprecated IPv4-compatible addresses
  v6('64:ff9b:1::/48', 'nat64_local'), // local-use NAT64 (RFC 8215)
  v6('100::/64', 'reserved'), // discard-only
  v6('2001::/32', 'teredo'),
  v6('2001::/23', 'reserved'), // IETF protocol assignments (ORCHID, benchmarking, AMT…)
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'), // RFC 9637
  v6('5f00::/16', 'reserved'), // SRv6 SIDs
  v6('fc00::/7', 'unique_local'),
  v6('fe80::/10', 'link_local'),
  v6('fec0::/10', 'site_local'),
  v6('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

/**
 * Parses an IP address string strictly: only the forms Node itself treats as IP
 * literals (`net.isIP`), optionally wrapped in brackets, with an optional IPv6 zone.
 * Returns null for anything else (hostnames, `0x7f.1`, `0177.0.0.1`, …).
 */
export function parseIp(text: string): IPv4 | IPv6 | null {
  if (typeof text !== 'string') return null;
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  const bare = zone >= 0 ? s.slice(0, zone) : s;
  const family = isIP(bare);
  if (family === 0) return null;
  try {
    return family === 4 ? ipaddr.IPv4.parse(bare) : ipaddr.IPv6.parse(bare);
  } catch {
    return null;
  }
}

function classifyV4(addr: IPv4): AddressClass {
  for (const [, net, bits, reason] of IPV4_RANGES) {
    if (addr.match(net, bits)) return reason;
  }
  return 'public';
}

function embeddedV4(addr: IPv6, offsetParts: number): IPv4 {
  const p = addr.parts;
  return new ipaddr.IPv4([p[offsetParts] >> 8, p[offsetParts] & 0xff, p[offsetParts + 1] >> 8, p[offsetParts + 1] & 0xff]);
}

function classifyV6(addr: IPv6): AddressClass {
  if (addr.isIPv4MappedAddress()) return classifyV4(addr.toIPv4Address());
  if (addr.match(NAT64)) return classifyV4(embeddedV4(addr, 6));
  for (const [, net, bits, reason] of IPV6_RANGES) {
    if (addr.match(net, bits)) return reason;
  }
  if (addr.match(SIX_TO_FOUR)) return classifyV4(embeddedV4(addr, 1));
  if (!addr.match(GLOBAL_UNICAST)) return 'reserved';
  return 'public';
}

/** `'public'`, or why the address is not an acceptable outbound destination. */
export function classifyAddress(ip: string): AddressClass {
  const addr = parseIp(ip);
  if (!addr) return 'invalid';
  return addr.kind() === 'ipv4' ? classifyV4(addr as IPv4) : classifyV6(addr as IPv6);
}

/** Parses `a.b.c.d/n`, `x::y/n` or a single address (→ /32, /128). Throws on garbage. */
export function parseCidr(text: string): [IPv4 | IPv6, number] {
  if (typeof text !== 'string') throw new Error('must be a string');
  const s = text.trim();
  const slash = s.indexOf('/');
  if (slash < 0) {
    const addr = parseIp(s);
    if (!addr || s.includes('%')) throw new Error(`"${text}" is not a valid IP address or CIDR`);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  }
  const addr = parseIp(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!addr || s.includes('%') || !/^\d{1,3}$/.test(bitsText)) {
    throw new Error(`"${text}" is not a valid IP address or CIDR`);
  }
  const bits = Number(bitsText);
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  if (bits > max) throw new Error(`"${text}" has a prefix length above ${max}`);
  return [addr, bits];
}

/**
 * Canonical text of a CIDR: network address, compact lower-case IPv6, explicit prefix.
 * `"10.1.2.3/8"` → `"10.0.0.0/8"`, `"192.168.1.5"` → `"192.168.1.5/32"`, `"::1"` → `"::1/128"`,
 * `"::ffff:10.0.0.1"` → `"10.0.0.1/32"`.
 */
export function normalizeCidr(text: string): string {
  let [addr, bits] = parseCidr(text);
  // IPv4-mapped IPv6 prefixes are written as the IPv4 prefix they denote.
  if (addr.kind() === 'ipv6' && bits >= 96 && (addr as IPv6).isIPv4MappedAddress()) {
    addr = (addr as IPv6).toIPv4Address();
    bits -= 96;
  }
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    bytes[i] &= (0xff << (8 - keep)) & 0xff;
  }
  return `${ipaddr.fromByteArray(bytes).toString()}/${bits}`;
}

/**
 * A membership test for a list of CIDRs (e.g. a trigger's `ip_allowlist`). IPv4-mapped
 * IPv6 addresses (`::ffff:1.2.3.4`, as dual-stack servers report IPv4 peers) match IPv4
 * entries. Invalid entries throw; invalid addresses never match.
 */
export function createCidrMatcher(cidrs: readonly string[]): (ip: string) => boolean {
  const nets = cidrs.map((c) => parseCidr(c));
  return (ip: string) => {
    const addr = parseIp(ip);
    if (!addr) return false;
    const candidates: (IPv4 | IPv6)[] = [addr];
    if (addr.kind() === 'ipv6' && (addr as IPv6).isIPv4MappedAddress()) candidates.push((addr as IPv6).toIPv4Address());
    return nets.some(([net, bits]) => candidates.some((a) => a.kind() === net.kind() && a.match(net, bits)));
  };
}

export interface AddressVerdict {
  allowed: boolean;
  /** Why it was refused (absent when allowed). */
  reason?: RefusalReason;
}

export interface AddressPolicy {
  check(ip: string): AddressVerdict;
}

export interface AddressPolicyOptions {
  /** Operator-configured CIDRs (or single addresses) that are allowed even when special. */
  allowCidrs?: string[];
}

/**
 * The outbound address policy: public addresses pass; everything else is refused unless
 * an operator-allowed CIDR covers it. IPv4-mapped IPv6 addresses match IPv4 CIDRs too.
 * Invalid allowCidrs entries throw at creation (configuration errors fail fast).
 */
export function createAddressPolicy(opts: AddressPolicyOptions = {}): AddressPolicy {
  for (const c of opts.allowCidrs ?? []) {
    try {
      parseCidr(c);
    } catch (e) {
      throw new Error(`Invalid allowed CIDR ${JSON.stringify(c)}: ${(e as Error).message}`);
    }
  }
  const inAllowlist = createCidrMatcher(opts.allowCidrs ?? []);

  return {
    check(ip: string): AddressVerdict {
      const addr = parseIp(ip);
      if (!addr) return { allowed: false, reason: 'invalid' };
      if (inAllowlist(ip)) return { allowed: true };
      const cls = addr.kind() === 'ipv4' ? classifyV4(addr as IPv4) : classifyV6(addr as IPv6);
      return cls === 'public' ? { allowed: true } : { allowed: false, reason: cls };
    },
  };
}
