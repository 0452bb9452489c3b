import { hashPassword, PASSWORD_HASHES_AT_ONCE, passwordHashing, verifyPassword } from './password';

describe('member passwords (scrypt)', () => {
  it('stores the parameters and a random salt with each hash, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    await expect(verifyPassword('correct horse battery', a)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', a)).resolves.toBe(false);
    await expect(verifyPassword('anything', null)).resolves.toBe(false);
    await expect(verifyPassword('anything', 'md5$abc')).resolves.toBe(false);
  });
});

describe('password hashing on the thread pool', () => {
  it('runs at most PASSWORD_HASHES_AT_ONCE hashes at once, however many sign-ins arrive together', async () => {
    const stored = await hashPassword('correct horse battery');
    const checks = Array.from({ length: 8 }, (_, i) => verifyPassword(`wrong password ${i}`, stored));
    // All eight were asked for at once: all but the allowed few wait their turn.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(passwordHashing()).toEqual({ running: PASSWORD_HASHES_AT_ONCE, waiting: 8 - PASSWORD_HASHES_AT_ONCE });
    await expect(Promise.all(checks)).resolves.toEqual(Array(8).fill(false));
    expect(passwordHashing()).toEqual({ running: 0, waiting: 0 });
  });
});
