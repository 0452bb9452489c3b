import type { SqlSource } from '@svc/db';
import { givePointsBack, peekCounter, RATE_WINDOW_SECONDS, sweepCounters, takePoint } from '@svc/domain';
import type { CounterState, WorkspaceLimits } from '@svc/domain';
import { mostConstraining } from './headers';
import type { Policy, PolicyState } from './headers';
import { KeyLeases } from './keyLeases';
import type { KeyLease } from './keyLeases';

/** The outcome of one request against its policies. */
export interface RateDecision {
  allowed: boolean;
  /** Every policy that applies to the request (for RateLimit-Policy). */
  policies: Policy[];
  /** The policy to report in RateLimit: the one that refused, or the most constraining. */
  current: PolicyState;
}

/**
 * What the key check left to judge: a point of the key's lease, or the counters its statement
 * took `taken` points from (`leaseId`: the key's lease, for the points beyond this request).
 */
export type KeyCounts = { lease: KeyLease } | { leaseId: string; key: CounterState; workspace: CounterState | null; taken: number };

export interface RateLimiter {
  /**
   * Judges an authenticated request by the key and workspace counters its authentication already
   * took (domain authenticateRequest: one statement), or by its lease; a refused request's points
   * are given back, and so are points taken beyond a figure.
   */
  judgeKey(args: { keyId: string; workspaceId: string; limits: WorkspaceLimits } & KeyCounts): Promise<RateDecision>;
  /** This instance's leases of busy keys' counts (keyLeases.ts). */
  leases: KeyLeases;
  /** Whether the address has already spent its unauthenticated budget (counts nothing); null when off. */
  checkAddress(address: string): Promise<RateDecision | null>;
  /** Counts an unauthenticated request against its client address; null when off. */
  takeForAddress(address: string): Promise<RateDecision | null>;
  /** Counts a /hooks request against its source address; null when off. */
  takeForHookAddress(address: string): Promise<RateDecision | null>;
  /** Counts a /hooks request against its trigger, at the workspace plan's per-key figure. */
  takeForTrigger(triggerId: string, perMin: number): Promise<RateDecision>;
  /** Counts a start made in the console against the workspace's counter, the one its API keys share. */
  takeForWorkspace(workspaceId: string, perMin: number): Promise<RateDecision>;
  close(): void;
}

export interface RateLimiterOptions {
  /** Where the counters are read and written (the gateway's prepared statements). */
  db: SqlSource;
  /** Unauthenticated requests per client address per minute; 0 turns that limit off. */
  unauthenticatedPerMin: number;
  /** /hooks requests per source address per minute; 0 turns that limit off. */
  hooksPerAddressPerMin?: number;
  /** How often rows of windows that ended over an hour ago are deleted (ms); 0 never. */
  cleanupEveryMs?: number;
  /** The most points of a busy key one statement takes (keyLeases.ts); 1 counts every request on its own (default 1). */
  leaseMax?: number;
}

interface Take {
  allowed: boolean;
  state: PolicyState;
  /** Gives the point back: a refused request must not count (and one a later check refused, neither). */
  refund(): Promise<void>;
}

/** A refund this close to the end of a window could land in the next one, where it would grant a request. */
const REFUND_GUARD_MS = 1_000;

/** One counter dimension (address, trigger): rows `<prefix>:<id>`, judged against the policy's quota in this process. */
class Dimension {
  constructor(
    private readonly db: SqlSource,
    private readonly prefix: string,
  ) {}

  async take(id: string, policy: Policy): Promise<Take> {
    const key = `${this.prefix}:${id}`;
    const now = Date.now();
    const { points, expire } = await takePoint(this.db, key, now);
    const allowed = points <= policy.quota;
    const msBeforeReset = Math.max(expire - now, 0);
    return {
      allowed,
      state: { policy, remaining: Math.max(policy.quota - points, 0), msBeforeReset },
      refund: () => givePointsBack(this.db, [key], 1, Date.now() + REFUND_GUARD_MS),
    };
  }

  async peek(id: string, policy: Policy): Promise<{ allowed: boolean; state: PolicyState }> {
    const now = Date.now();
    const counter = await peekCounter(this.db, `${this.prefix}:${id}`, now);
    if (!counter) return { allowed: true, state: { policy, remaining: policy.quota, msBeforeReset: policy.windowSeconds * 1000 } };
    const allowed = counter.points < policy.quota;
    return {
      allowed,
      state: { policy, remaining: Math.max(policy.quota - counter.points, 0), msBeforeReset: Math.max(counter.expire - now, 0) },
    };
  }
}

/**
 * Rate limits counted in PostgreSQL (domain rateLimits/counters.ts), so every gateway instance
 * on the same database shares them (fixed one-minute windows, atomic `INSERT … ON CONFLICT`).
 * The key's and workspace's counters (rows `key:…`, `ws:…`) are taken by the authentication
 * statement itself (domain authenticateRequest), on the hot path of every API
 * request, a busy key's several at a time (keyLeases.ts); judgeKey only reads its result. A
 * refused request is given back, so it never counts against the key, the workspace or the
 * address: only requests that reach a route are counted.
 */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const addresses = new Dimension(opts.db, 'ip');
  const hookAddresses = new Dimension(opts.db, 'hookip');
  const triggers = new Dimension(opts.db, 'trg');
  // The rows `ws:<id>` the key check's statement takes its workspace points from.
  const workspaces = new Dimension(opts.db, 'ws');
  const w = RATE_WINDOW_SECONDS;
  const addressPolicy: Policy | null =
    opts.unauthenticatedPerMin > 0 ? { name: 'ip', quota: opts.unauthenticatedPerMin, windowSeconds: w } : null;
  const hooksPerAddress = opts.hooksPerAddressPerMin ?? 0;
  const hookAddressPolicy: Policy | null = hooksPerAddress > 0 ? { name: 'hook_ip', quota: hooksPerAddress, windowSeconds: w } : null;

  /** Gives points back to these counters, in one statement (not when the window is about to end). */
  const giveBack = (rowKeys: string[], points: number, now: number) => givePointsBack(opts.db, rowKeys, points, now + REFUND_GUARD_MS);
  const leases = new KeyLeases(opts.leaseMax ?? 1);

  /** One counter, the refused request given back. */
  async function takeOne(dimension: Dimension, id: string, policy: Policy): Promise<RateDecision> {
    const t = await dimension.take(id, policy);
    if (!t.allowed) await t.refund();
    return { allowed: t.allowed, policies: [policy], current: t.state };
  }

  const cleanupEveryMs = opts.cleanupEveryMs ?? 5 * 60_000;
  const timer =
    cleanupEveryMs > 0
      ? setInterval(() => {
          sweepCounters(opts.db, Date.now() - 3_600_000).catch(() => undefined);
        }, cleanupEveryMs)
      : undefined;
  timer?.unref();

  return {
    async judgeKey(args) {
      const { keyId, workspaceId, limits } = args;
      const keyPolicy: Policy = { name: 'key', quota: limits.keyPerMin, windowSeconds: w };
      const wsPolicy: Policy = { name: 'workspace', quota: limits.workspacePerMin, windowSeconds: w };
      const policies = [keyPolicy, wsPolicy];
      const now = Date.now();
      const stateOf = (policy: Policy, c: CounterState, unused = 0): PolicyState => ({
        policy,
        remaining: Math.max(policy.quota - (c.points - unused), 0),
        msBeforeReset: Math.max(c.expire - now, 0),
      });
      const leased = (lease: KeyLease): RateDecision => ({
        allowed: true,
        policies,
        current: mostConstraining([stateOf(keyPolicy, lease.key), stateOf(wsPolicy, lease.workspace)]),
      });
      if ('lease' in args) return leased(args.lease);
      const { leaseId, key, workspace, taken } = args;
      /** A request its own count refused: given back, yet served when a concurrent request's lease left points meanwhile. */
      const refuse = async (rowKeys: string[], state: PolicyState): Promise<RateDecision> => {
        const lease = leases.claim(leaseId, now);
        await giveBack(rowKeys, taken, now);
        return lease?.fits(limits) ? leased(lease) : { allowed: false, policies, current: state };
      };
      // Of the points taken, those within each figure (the counter stood at points - taken before).
      const keyGrant = Math.min(taken, keyPolicy.quota - (key.points - taken));
      // The key first: a key over its own figure never touched the workspace's count.
      if (keyGrant < 1 || !workspace) return refuse([`key:${keyId}`], stateOf(keyPolicy, key));
      const wsGrant = Math.min(taken, wsPolicy.quota - (workspace.points - taken));
      if (wsGrant < 1) return refuse([`key:${keyId}`, `ws:${workspaceId}`], stateOf(wsPolicy, workspace));
      // Points taken beyond either figure (other instances counted meanwhile) are given back.
      const granted = Math.min(keyGrant, wsGrant);
      const excess = taken - granted;
      if (excess > 0) await giveBack([`key:${keyId}`, `ws:${workspaceId}`], excess, now);
      const keyNow = { ...key, points: key.points - excess };
      const wsNow = { ...workspace, points: workspace.points - excess };
      leases.keep(leaseId, granted - 1, keyNow, wsNow, now);
      return {
        allowed: true,
        policies,
        current: mostConstraining([stateOf(keyPolicy, keyNow, granted - 1), stateOf(wsPolicy, wsNow, granted - 1)]),
      };
    },

    leases,

    async checkAddress(address) {
      if (!addressPolicy) return null;
      const { allowed, state } = await addresses.peek(address, addressPolicy);
      return { allowed, policies: [addressPolicy], current: state };
    },

    async takeForAddress(address) {
      return addressPolicy ? takeOne(addresses, address, addressPolicy) : null;
    },

    async takeForHookAddress(address) {
      return hookAddressPolicy ? takeOne(hookAddresses, address, hookAddressPolicy) : null;
    },

    async takeForTrigger(triggerId, perMin) {
      return takeOne(triggers, triggerId, { name: 'trigger', quota: perMin, windowSeconds: w });
    },

    async takeForWorkspace(workspaceId, perMin) {
      return takeOne(workspaces, workspaceId, { name: 'workspace', quota: perMin, windowSeconds: w });
    },

    close() {
      if (timer) clearInterval(timer);
    },
  };
}
