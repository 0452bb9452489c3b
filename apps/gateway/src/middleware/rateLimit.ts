import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { API_KEY_SHAPE, AppError } from '@svc/domain';
import { rateLimitHeaders, resetSeconds } from '../ratelimit/headers';
import type { PolicyName } from '../ratelimit/headers';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter';
import { bearerToken, keyCountsOf, principalOf } from './authenticate';
import type { ClientAddresses } from './clientAddress';

/**
 * Rate limits (docs/limits.md) on the /api/v1 router. Every answer carries RateLimit-Policy and
 * RateLimit; a refused request is answered 429 `rate_limited` with Retry-After before it reaches
 * any route, so it has no side effect (and is not counted).
 *
 *   api.use(addressGate)              without a well-formed key, from an address over its budget: 429, no key lookup
 *   api.use(refuseBrowsers)
 *   api.get('/openapi.json', countAddress, …)
 *   api.use(authenticate(…))          the key, and its key and workspace counters taken (or its lease's), in one statement
 *   api.use(countRefused)             a request refused so far (401, browser) counts against its address
 *   api.use(perKey)                   judged per key, and per workspace across its keys
 */
export interface RateLimitMiddleware {
  addressGate: RequestHandler;
  countAddress: RequestHandler;
  countRefused: ErrorRequestHandler;
  perKey: RequestHandler;
}

const DETAIL: Record<PolicyName, (q: number, t: number) => string> = {
  key: (q, t) => `This API key is limited to ${q} requests per minute; retry in ${t} s`,
  workspace: (q, t) => `This workspace's API keys are limited to ${q} requests per minute together; retry in ${t} s`,
  ip: (q, t) => `Too many unauthenticated requests from this address (${q} per minute); retry in ${t} s`,
  trigger: (q, t) => `This trigger accepts ${q} requests per minute; retry in ${t} s`,
  hook_ip: (q, t) => `Too many trigger requests from this address (${q} per minute); retry in ${t} s`,
};

/** Sets the RateLimit headers of a decision; a refusal throws 429 `rate_limited` with Retry-After. */
export function applyDecision(res: Response, decision: RateDecision): void {
  const headers = rateLimitHeaders(decision.policies, decision.current, !decision.allowed);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (!decision.allowed) {
    const { policy } = decision.current;
    throw new AppError('rate_limited', DETAIL[policy.name](policy.quota, resetSeconds(decision.current) || 1), { headers });
  }
}

function storeUnavailable(): AppError {
  return new AppError('unavailable', 'Rate limits could not be checked; retry the request', { headers: { 'Retry-After': '1' } });
}

/** Per key and workspace: without the store the request is not let through (the key lookup needs the same database). */
export async function decide<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch {
    throw storeUnavailable();
  }
}

/** Per address: without the store the request goes on uncounted (the OpenAPI document needs no database). */
export async function orNull<T>(p: Promise<T | null>): Promise<T | null> {
  return p.catch(() => null);
}

/** Refusals that come before a key is known, and so count against the client address. */
function isUnauthenticatedRefusal(err: unknown): boolean {
  return err instanceof AppError && (err.status === 401 || err.code === 'browser_requests_not_allowed');
}

export function rateLimits(limiter: RateLimiter, addresses: ClientAddresses): RateLimitMiddleware {
  const clientAddress = addresses.bucket;
  return {
    async addressGate(req, res, next) {
      // Only a request presenting what could be an API key is looked up first: a valid key never
      // meets the address budget, and an invalid one is counted against the address by
      // countRefused. Any other Authorization header is judged here, like none.
      const token = bearerToken(req.headers.authorization);
      if (token !== null && API_KEY_SHAPE.test(token)) {
        next();
        return;
      }
      const decision = await orNull(limiter.checkAddress(clientAddress(req)));
      if (decision && !decision.allowed) applyDecision(res, decision);
      next();
    },

    async countAddress(req, res, next) {
      const decision = await orNull(limiter.takeForAddress(clientAddress(req)));
      if (decision) applyDecision(res, decision);
      next();
    },

    countRefused(err, req, res, next) {
      if (!isUnauthenticatedRefusal(err)) {
        next(err);
        return;
      }
      limiter.takeForAddress(clientAddress(req)).then(
        (decision) => {
          try {
            if (decision) applyDecision(res, decision);
            next(err);
          } catch (refused) {
            next(refused);
          }
        },
        // The refusal itself stands; only its count is lost.
        () => next(err),
      );
    },

    async perKey(_req, res, next) {
      const { keyId, workspaceId, limits } = principalOf(res);
      applyDecision(res, await decide(limiter.judgeKey({ keyId, workspaceId, limits, ...keyCountsOf(res) })));
      next();
    },
  };
}
