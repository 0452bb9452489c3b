import { classifyAddress, createAddressPolicy, createCidrMatcher, normalizeCidr, parseCidr, parseIp } from './addressPolicy';

describe('classifyAddress', () => {
  test.each([
    // IPv4 public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.216.34', 'public'],
    ['172.15.255.255', 'public'], // just below 172.16/12
    ['172.32.0.0', 'public'], // just above 172.16/12
    ['100.63.255.255', 'public'], // just below 100.64/10
    ['100.128.0.0', 'public'], // just above 100.64/10
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['169.253.255.255', 'public'],
    ['192.0.1.1', 'public'],
    ['11.0.0.1', 'public'],
    // IPv4 refused
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.253', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['192.0.0.1', 'reserved'],
    ['192.0.0.170', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['254.1.2.3', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 public
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['2a00:1450:4001:82b::200e', 'public'],
    ['2002:0808:0808::1', 'public'], // 6to4 of 8.8.8.8
    ['64:ff9b::808:808', 'public'], // NAT64 of 8.8.8.8
    ['::ffff:8.8.8.8', 'public'], // mapped public v4
    // IPv6 refused
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['fec0::1', 'site_local'],
    ['100::1', 'reserved'],
    ['2001::1', 'teredo'],
    ['2001:2::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['::7f00:1', 'ipv4_compatible'],
    ['64:ff9b:1::a00:1', 'nat64_local'],
    ['4000::1', 'reserved'], // outside 2000::/3
    ['1::1', 'reserved'],
    // IPv4 embedded in IPv6: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 of 127.0.0.1
    ['64:ff9b::a9fe:a9fe', 'metadata'], // NAT64 of 169.254.169.254
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:7f00:0001::1', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
    ['[::1]', 'loopback'], // bracketed
  ])('%s → %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  test.each([
    'localhost',
    'example.com',
    '',
    '1.2.3',
    '256.1.1.1',
    '0x7f.0.0.1', // non-canonical forms are not accepted as IPs here
    '0177.0.0.1',
    '2130706433',
    '127.1',
    '::ffff::1',
    '1.2.3.4/32',
    ' 1.2.3.4 x',
  ])('invalid: %j', (ip) => {
    expect(classifyAddress(ip)).toBe('invalid');
  });
});

describe('createAddressPolicy', () => {
  test('public allowed, everything else refused with a reason', () => {
    const policy = createAddressPolicy();
    expect(policy.check('8.8.8.8')).toEqual({ allowed: true });
    expect(policy.check('127.0.0.1')).toEqual({ allowed: false, reason: 'loopback' });
    expect(policy.check('::ffff:127.0.0.1')).toEqual({ allowed: false, reason: 'loopback' });
    expect(policy.check('169.254.169.254')).toEqual({ allowed: false, reason: 'metadata' });
    expect(policy.check('not-an-ip')).toEqual({ allowed: false, reason: 'invalid' });
  });

  test('operator-allowed CIDRs override refusals, and only inside the CIDR', () => {
    const policy = createAddressPolicy({ allowCidrs: ['127.0.0.0/8', '10.1.0.0/16', 'fd00::/8', '192.168.1.5'] });
    expect(policy.check('127.0.0.1')).toEqual({ allowed: true });
    expect(policy.check('127.9.9.9')).toEqual({ allowed: true });
    expect(policy.check('10.1.200.3')).toEqual({ allowed: true });
    expect(policy.check('10.2.0.1')).toEqual({ allowed: false, reason: 'private' });
    expect(policy.check('fd12::1')).toEqual({ allowed: true });
    expect(policy.check('fc00::1')).toEqual({ allowed: false, reason: 'unique_local' });
    expect(policy.check('192.168.1.5')).toEqual({ allowed: true });
    expect(policy.check('192.168.1.6')).toEqual({ allowed: false, reason: 'private' });
    expect(policy.check('::1')).toEqual({ allowed: false, reason: 'loopback' }); // v4 loopback allowed ≠ v6 loopback
    expect(policy.check('169.254.169.254')).toEqual({ allowed: false, reason: 'metadata' });
  });

  test('IPv4 allowlist entries also cover IPv4-mapped IPv6 forms', () => {
    const policy = createAddressPolicy({ allowCidrs: ['127.0.0.0/8'] });
    expect(policy.check('::ffff:127.0.0.1')).toEqual({ allowed: true });
    expect(policy.check('::ffff:10.0.0.1')).toEqual({ allowed: false, reason: 'private' });
  });

  test('allowing the metadata address is possible but explicit', () => {
    expect(createAddressPolicy({ allowCidrs: ['169.254.169.254/32'] }).check('169.254.169.254')).toEqual({ allowed: true });
    expect(createAddressPolicy({ allowCidrs: ['169.254.0.0/16'] }).check('169.254.169.254')).toEqual({ allowed: true });
  });

  test('invalid CIDRs fail fast at creation', () => {
    expect(() => createAddressPolicy({ allowCidrs: ['10.0.0.0/33'] })).toThrow(/Invalid allowed CIDR/);
    expect(() => createAddressPolicy({ allowCidrs: ['nope'] })).toThrow(/Invalid allowed CIDR "nope"/);
    expect(() => createAddressPolicy({ allowCidrs: [''] })).toThrow(/Invalid allowed CIDR/);
  });

  test('an empty allowlist changes nothing', () => {
    expect(createAddressPolicy({ allowCidrs: [] }).check('10.0.0.1')).toEqual({ allowed: false, reason: 'private' });
  });
});

describe('CIDR helpers', () => {
  test.each([
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.168.1.5', '192.168.1.5/32'],
    ['192.168.1.255/31', '192.168.1.254/31'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::1', '::1/128'],
    ['2001:DB8:0:0:0:0:0:1/32', '2001:db8::/32'],
    ['fe80::1234/10', 'fe80::/10'],
    [' 10.0.0.0/8 ', '10.0.0.0/8'],
    ['::ffff:10.0.0.1', '10.0.0.1/32'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    ['::ffff:0:0/64', '::/64'],
  ])('normalizeCidr(%j) = %j', (input, expected) => {
    expect(normalizeCidr(input)).toBe(expected);
  });

  test.each(['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/a', '10.0.0.0/8/8', 'fe80::1%eth0', 'x/8', '10.0.0/8', '/8'])(
    'parseCidr refuses %j',
    (text) => {
      expect(() => parseCidr(text)).toThrow();
    },
  );

  test('createCidrMatcher (trigger ip_allowlist checks)', () => {
    const match = createCidrMatcher(['203.0.113.0/24', '2001:db8::/32', '198.51.100.7/32']);
    expect(match('203.0.113.200')).toBe(true);
    expect(match('::ffff:203.0.113.5')).toBe(true); // dual-stack socket form
    expect(match('2001:db8:1::9')).toBe(true);
    expect(match('198.51.100.7')).toBe(true);
    expect(match('198.51.100.8')).toBe(false);
    expect(match('203.0.114.1')).toBe(false);
    expect(match('garbage')).toBe(false);
    expect(createCidrMatcher([])('1.2.3.4')).toBe(false);
    expect(() => createCidrMatcher(['bad'])).toThrow();
  });

  test('parseIp is strict', () => {
    expect(parseIp('1.2.3.4')?.toString()).toBe('1.2.3.4');
    expect(parseIp('[2001:db8::1]')?.toString()).toBe('2001:db8::1');
    expect(parseIp('01.2.3.4')).toBeNull();
    expect(parseIp(42 as unknown as string)).toBeNull();
  });
});
