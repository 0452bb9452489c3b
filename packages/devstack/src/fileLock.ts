import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { sleep, type Log } from './log';
import { isProcessAlive } from './processes';

/** A lock not refreshed for this long belongs to a dead holder (the holder touches it every 20 s). */
const LOCK_STALE_MS = 3 * 60_000;

interface LockContent {
  pid: number;
  host: string;
}

/**
 * Runs `fn` holding a lock file created with O_EXCL, so concurrent processes (two test runs,
 * a test run and `npm start`) do one-time installs one at a time. A lock whose owner died (or
 * stopped refreshing it) is taken over. `what` names the work in the waiting message.
 */
export async function withFileLock<T>(lockPath: string, what: string, log: Log, maxWaitMs: number, fn: () => Promise<T>): Promise<T> {
  const me: LockContent = { pid: process.pid, host: os.hostname() };
  const deadline = Date.now() + maxWaitMs + LOCK_STALE_MS;
  let announced = false;
  for (;;) {
    try {
      writeFileSync(lockPath, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(lockPath);
    if (holder && isStale(lockPath, holder)) {
      // Move it aside under a unique name, so two waiters cannot both remove a fresh lock.
      const aside = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
      try {
        renameSync(lockPath, aside);
        rmSync(aside, { force: true });
      } catch {
        /* another waiter got there first */
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${lockPath}`);
    if (!announced) {
      announced = true;
      log(`Waiting for ${what} already under way${holder && holder.pid > 0 ? ` (pid ${holder.pid})` : ''} ...`);
    }
    await sleep(1_000);
  }

  const touch = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lockPath, now, now);
    } catch {
      /* ignore */
    }
  }, 20_000);
  touch.unref();
  try {
    return await fn();
  } finally {
    clearInterval(touch);
    const holder = readLock(lockPath);
    if (holder && holder.pid === me.pid && holder.host === me.host) rmSync(lockPath, { force: true });
  }
}

function readLock(lockPath: string): LockContent | null {
  try {
    const v = JSON.parse(readFileSync(lockPath, 'utf8')) as LockContent;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? v : null;
  } catch {
    // Being written right now, or garbage: treat as held unless it is old.
    return existsSync(lockPath) ? { pid: -1, host: '' } : null;
  }
}

function isStale(lockPath: string, holder: LockContent): boolean {
  if (holder.host === os.hostname() && holder.pid > 0 && !isProcessAlive(holder.pid)) return true;
  try {
    return Date.now() - statSync(lockPath).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false;
  }
}
