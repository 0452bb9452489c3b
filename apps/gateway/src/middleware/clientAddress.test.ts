import type { Request } from 'express';
import { clientAddresses } from './clientAddress';

const req = (peer: string, xff?: string) =>
  ({ socket: { remoteAddress: peer }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as Request;

describe('client addresses for rate limits', () => {
  const direct = clientAddresses([]);
  const proxied = clientAddresses(['10.0.0.0/8']);

  it('counts IPv6 per /64, so rotating the host part of one allocation gets no new budget', () => {
    expect(direct.bucket(req('2001:db8:1:2::1'))).toBe('2001:db8:1:2::/64');
    expect(direct.bucket(req('2001:db8:1:2:ffff:ffff:ffff:ffff'))).toBe('2001:db8:1:2::/64');
    expect(direct.bucket(req('2001:db8:1:3::1'))).not.toBe(direct.bucket(req('2001:db8:1:2::1')));
  });

  it('counts IPv4 (and IPv4-mapped IPv6) per address', () => {
    expect(direct.bucket(req('::ffff:192.0.2.7'))).toBe('192.0.2.7');
    expect(direct.bucket(req('192.0.2.7'))).toBe('192.0.2.7');
  });

  it('reads X-Forwarded-For only from a trusted proxy', () => {
    expect(proxied.bucket(req('10.1.2.3', '198.51.100.9'))).toBe('198.51.100.9');
    expect(proxied.bucket(req('10.1.2.3', '2001:db8:9:9::5, 10.0.0.2'))).toBe('2001:db8:9:9::/64');
    expect(proxied.bucket(req('203.0.113.1', '198.51.100.9'))).toBe('203.0.113.1');
    expect(direct.bucket(req('10.1.2.3', '198.51.100.9'))).toBe('10.1.2.3');
  });
});
