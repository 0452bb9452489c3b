import type { CounterState, WorkspaceLimits } from '@svc/domain';

/**
 * Leases of a busy key's rate-limit counts, held by one gateway instance.
 *
 * Counting a request writes two rows (the key's and the workspace's counters), and those writes
 * are most of what the key check costs PostgreSQL. So a key that makes many requests has its
 * points taken several at a time: one counting statement takes N points from both shared
 * counters, this request uses one, and the next N-1 requests of that key on this instance are
 * served from the lease with a read-only key check (the key is still read on every request, so
 * a revocation or a plan change holds on the very next one).
 *
 * Every request served is backed by a point in the shared counters, so no instance, and no
 * number of instances together, ever serves more than a figure. The price is that points an
 * instance leased but did not use before the window ends count as used: a lease is at most
 * 1/8 of what is left of either figure (and at most `max`), so a key near its figure is counted
 * one request at a time, exactly as without leases. A lease grows only while the key is busy:
 * it doubles when the last one was used up within LEASE_GROWTH_MS, and starts again at 1 when not.
 */
export interface KeyLease {
  /** The key's and workspace's counters as this request leaves them (what RateLimit reports). */
  key: CounterState;
  workspace: CounterState;
  /** Whether the lease was taken under these figures; a plan change voids it. */
  fits(limits: WorkspaceLimits): boolean;
}

interface Lease {
  /** Points taken from both counters and not yet used by a request. */
  left: number;
  /** The shared counters as this instance last saw them (its unused points included). */
  key: CounterState;
  workspace: CounterState;
  /** When the counting statement that took the lease was answered (ms). */
  takenAt: number;
  /** Points the next counting statement takes when the key stays this busy. */
  size: number;
}

/** A lease used up faster than this is doubled for the next one. */
const LEASE_GROWTH_MS = 1_000;
/** A lease is never used this close to the end of either window (its points could land in the next). */
const WINDOW_GUARD_MS = 1_000;
/** Beyond this many keys, leases past their window are forgotten (each is a few hundred bytes). */
const MAX_KEYS = 10_000;

export class KeyLeases {
  private readonly leases = new Map<string, Lease>();

  /** `max`: the most points one statement takes (1: every request is counted on its own). */
  constructor(private readonly max: number) {}

  /** One point of the key's lease for this request; null when none is left (the request is counted). */
  claim(id: string, now: number): KeyLease | null {
    const lease = this.leases.get(id);
    if (!lease || lease.left <= 0 || now >= endOf(lease) - WINDOW_GUARD_MS) return null;
    lease.left -= 1;
    const served = (c: CounterState): CounterState => ({ ...c, points: c.points - lease.left });
    const { key, workspace } = lease;
    return {
      key: served(key),
      workspace: served(workspace),
      fits: (limits) => limits.keyPerMin === key.quota && limits.workspacePerMin === workspace.quota,
    };
  }

  /** The points a counting statement takes for a request of this key not covered by a lease. */
  sizeFor(id: string, now: number): number {
    const lease = this.leases.get(id);
    if (!lease || this.max <= 1) return 1;
    // What is left of each figure, as last seen; a window that has ended left all of it.
    const free = (c: CounterState): number => (now < c.expire ? c.quota - c.points : c.quota);
    const cap = Math.min(this.max, Math.floor(free(lease.key) / 8), Math.floor(free(lease.workspace) / 8));
    return Math.max(1, Math.min(lease.size, cap));
  }

  /**
   * After a counting statement that allowed the request: `spare` of the points it took are left
   * for the key's next requests; `key` and `workspace` are the counters as it left them (points
   * given back already deducted).
   */
  keep(id: string, spare: number, key: CounterState, workspace: CounterState, now: number): void {
    const prior = this.leases.get(id);
    if (!prior && this.leases.size >= MAX_KEYS) this.forgetEnded(now);
    const size = prior && now - prior.takenAt < LEASE_GROWTH_MS ? Math.min(this.max, prior.size * 2) : 1;
    // Answers of concurrent statements may arrive in any order: the later counts include the
    // earlier ones. Points left from an earlier window are void.
    const sameWindow = prior && prior.key.expire === key.expire && prior.workspace.expire === workspace.expire;
    this.leases.set(id, {
      left: spare + (sameWindow ? prior.left : 0),
      key: sameWindow && prior.key.points > key.points ? prior.key : key,
      workspace: sameWindow && prior.workspace.points > workspace.points ? prior.workspace : workspace,
      takenAt: now,
      size,
    });
  }

  /** The key is refused (revoked, expired, unknown) or its figures changed: its lease is void. */
  drop(id: string): void {
    this.leases.delete(id);
  }

  private forgetEnded(now: number): void {
    for (const [id, lease] of this.leases) if (now >= endOf(lease)) this.leases.delete(id);
    if (this.leases.size >= MAX_KEYS) this.leases.clear();
  }
}

function endOf(lease: Lease): number {
  return Math.min(lease.key.expire, lease.workspace.expire);
}
