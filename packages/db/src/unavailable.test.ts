import { isDatabaseUnavailable } from './unavailable';

describe('isDatabaseUnavailable', () => {
  it('recognises the database out of reach, shutting down or starting up', () => {
    // Shapes as Prisma 7 with the pg driver adapter and pg itself report them.
    const unreachable = Object.assign(new Error("Can't reach database server"), {
      code: 'P1001',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } } },
    });
    expect(isDatabaseUnavailable(unreachable)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('raw'), { code: 'P2010', message: "Can't reach database server at x" }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('starting up'), { code: '57P03' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('recognises a pool with no connection free in time, and a transaction that could not start', () => {
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
    const noTransaction = Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), {
      code: 'P2028',
    });
    expect(isDatabaseUnavailable(noTransaction)).toBe(true);
  });

  it('leaves bugs and bad data alone', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('unique'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
