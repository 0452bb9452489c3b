import { createAddressPolicy } from './addressPolicy';
import { BlockedAddressError, createGuardedDispatcher, createGuardedLookup } from './guardedDispatcher';
import { performHttpRequest } from './httpRequest';

/** What the guarded lookup answers for `host` when DNS says `address`. */
function lookupError(host: string, address: string): Promise<BlockedAddressError> {
  const lookup = createGuardedLookup(createAddressPolicy(), async () => [{ address, family: address.includes(':') ? 6 : 4 }]);
  return new Promise((resolve) => lookup(host, { all: true }, (err: BlockedAddressError) => resolve(err)));
}

describe('a refused destination', () => {
  test.each([
    ['a private address', 'db.internal.example', '10.20.30.40'],
    ['the metadata address', 'imds.internal.example', '169.254.169.254'],
    ['an IPv6 unique local address', 'svc.internal.example', 'fd12:3456:789a::17'],
  ])('never names %s a host name resolved to; the error keeps it for operators', async (_what, host, address) => {
    const err = await lookupError(host, address);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err.message).toContain(host);
    expect(err.message).not.toContain(address);
    expect(err).toMatchObject({ hostname: host, address });
  });

  test('an http request through the guard fails naming the host only', async () => {
    const dispatcher = createGuardedDispatcher({
      policy: createAddressPolicy(),
      resolveAll: async () => [{ address: '192.168.77.5', family: 4 }],
    });
    try {
      const failure = await performHttpRequest({ method: 'GET', url: 'http://router.internal.example/', dispatcher }).catch(
        (e: Error) => e,
      );
      expect(failure).toMatchObject({ kind: 'blocked_address' });
      expect((failure as Error).message).toContain('router.internal.example');
      expect((failure as Error).message).not.toContain('192.168.77.5');
    } finally {
      await dispatcher.close();
    }
  });

  test('a literal address is named as written, with why it is refused', async () => {
    const err = await lookupError('10.0.0.1', '10.0.0.1');
    expect(err.message).toBe('Refusing to connect to 10.0.0.1: private address');
  });
});
