/**
 * RateLimit-Policy and RateLimit header fields of draft-ietf-httpapi-ratelimit-headers
 * (versions 09 to 11): Structured Field lists of items, each a quoted policy name with
 * parameters.
 *
 *   RateLimit-Policy: "key";q=600;w=60, "workspace";q=1200;w=60
 *   RateLimit: "key";r=599;t=42
 *
 * `q` is the quota (requests), `w` the window (seconds), `r` what is left of the quota and
 * `t` the seconds until the current window ends and the quota is whole again. RateLimit
 * names the most constraining policy for this request: the one with the least left.
 */

/**
 * The policies: per API key, per workspace (all its keys), per client address (unauthenticated
 * requests), and on /hooks per trigger and per source address.
 */
export type PolicyName = 'key' | 'workspace' | 'ip' | 'trigger' | 'hook_ip';

export interface Policy {
  name: PolicyName;
  quota: number;
  windowSeconds: number;
}

/** Where one policy stands after this request. */
export interface PolicyState {
  policy: Policy;
  remaining: number;
  /** Milliseconds until the window ends. */
  msBeforeReset: number;
}

export function resetSeconds(state: PolicyState): number {
  const s = Math.ceil(Math.max(state.msBeforeReset, 0) / 1000);
  return Math.min(s, state.policy.windowSeconds);
}

/** The policy a client must watch: least remaining; on a tie, the one that resets last. */
export function mostConstraining(states: readonly PolicyState[]): PolicyState {
  if (states.length === 0) throw new Error('no rate-limit policy');
  return states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.msBeforeReset > a.msBeforeReset) ? b : a));
}

export function formatPolicyHeader(policies: readonly Policy[]): string {
  return policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(', ');
}

export function formatRateLimitHeader(state: PolicyState): string {
  return `"${state.policy.name}";r=${Math.max(state.remaining, 0)};t=${resetSeconds(state)}`;
}

/** The headers of an answer; `refused` adds `Retry-After` (delay-seconds, at least 1). */
export function rateLimitHeaders(policies: readonly Policy[], current: PolicyState, refused = false): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Policy': formatPolicyHeader(policies),
    RateLimit: formatRateLimitHeader(current),
  };
  if (refused) headers['Retry-After'] = String(Math.max(resetSeconds(current), 1));
  return headers;
}
