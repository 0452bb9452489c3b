import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import pLimit from 'p-limit';

// scrypt with N=2^15, r=8, p=1: 32 MiB and ~50-100 ms per hash on a laptop core (OWASP's
// minimum is N=2^17 with r=8,p=1 or equivalent; 2^15 keeps sign-in fast on a 2-core box
// while still memory-hard). The parameters travel with each hash, so they can be raised later.
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * Hashes run on libuv's thread pool (4 threads), which file, DNS and zlib work shares: at most
 * this many at once per process, the rest wait their turn, so a flood of sign-ins cannot take
 * every thread and stall the other requests.
 */
export const PASSWORD_HASHES_AT_ONCE = 2;
const hashing = pLimit(PASSWORD_HASHES_AT_ONCE);

/** How many hashes run now and wait for a turn (for tests and metrics). */
export function passwordHashing(): { running: number; waiting: number } {
  return { running: hashing.activeCount, waiting: hashing.pendingCount };
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return hashing(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_LEN, { N: n, r, p, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

/** `scrypt$N$r$p$salt$hash`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // Without a stored hash, still spend the same work so timing does not reveal which emails exist.
  const parts = (stored ?? `scrypt$${N}$${R}$${P}$$`).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const key = await derive(password, Buffer.from(salt!, 'base64url'), Number(n), Number(r), Number(p));
  const expected = Buffer.from(hash!, 'base64url');
  return stored !== null && expected.length === key.length && timingSafeEqual(expected, key);
}
