import { Prisma, rowsOf } from '@svc/db';
import type { SqlSource } from '@svc/db';
import { AppError } from '../errors';
import { planFiguresArg, workspaceLimits } from '../workspaces/limits';
import { takePointsSql, windowEndFrom } from '../rateLimits/counters';
import type { CounterState } from '../rateLimits/counters';
import { API_KEY_SHAPE, hashApiKey } from './apiKeys';
import type { Principal } from './apiKeys';
import { isScope } from './scopes';

export interface AuthenticatedRequest {
  principal: Principal;
  /** The key's counter after this statement took `taken` points from it; null when it took none. */
  key: CounterState | null;
  /** The workspace's counter; null when the key's own refusal left it untouched, or none were taken. */
  workspace: CounterState | null;
  /** The points taken from each counter (authenticateRequest's `take`). */
  taken: number;
}

/** The per-key figures the statement applies (svc_plan_figure). */
const KEY_FIGURES = planFiguresArg('ratePerMin');

interface Row {
  id: string;
  workspace_id: string;
  scopes: string[];
  revoked: boolean;
  expired: boolean;
  plan: string;
  rate_limit_per_min: number | null;
  concurrency: number | null;
  key_quota: number;
  key_points: string | number | null;
  key_expire: string | number | null;
  ws_points: string | number | null;
  ws_expire: string | number | null;
}

const counter = (quota: number, points: Row['key_points'], expire: Row['key_expire']): CounterState | null =>
  points === null || expire === null ? null : { quota, points: Number(points), expire: Number(expire) };

/**
 * Authenticates a bearer key and takes `take` points from the key's and the workspace's rate-limit
 * counters, in ONE statement: the hot path of every API request. Nothing is cached, so a revoked
 * key is refused on the very next request on every gateway instance. The lookup is by SHA-256
 * hash (an index lookup on the digest, so timing says nothing about stored keys).
 *
 * `take` is 1 for a request counted on its own; a gateway leasing a busy key's counts takes
 * several at once (apps/gateway ratelimit/keyLeases.ts), and with `take: 0` (a request its lease
 * covers) the statement only reads, sparing the counters' rows a write per request.
 *
 * The counters are svc's fixed windows in `rate_limits` (rows `key:<id>` and `ws:<id>`,
 * rateLimits/counters.ts), taken by the same statement every counter uses. The workspace's counter is taken only when the key's allows the request, as before. A request the
 * counts refuse is given back by the caller, so it never counts. The key's figure is computed in
 * SQL from the same plan table (and enterprise custom figure) as workspaceLimits; the returned
 * principal's limits come from workspaceLimits itself, and the two are checked to agree.
 * "Last used" is written at most once a minute per key, in the same statement.
 */
export async function authenticateRequest(
  db: SqlSource,
  presented: string,
  opts: {
    now?: number;
    take?: number;
    /** hashApiKey(presented), when the caller has it already. */
    keyHash?: string;
  } = {},
): Promise<AuthenticatedRequest> {
  const { now = Date.now(), take = 1 } = opts;
  if (!API_KEY_SHAPE.test(presented)) throw new AppError('invalid_api_key', 'The API key is not valid');
  const counts = take > 0 ? counting(now, take) : NOT_COUNTING;
  const rows = await rowsOf<Row>(
    db,
    Prisma.sql`
    WITH k AS (
      SELECT a.id, a.workspace_id, a.scopes, a.revoked_at IS NOT NULL AS revoked,
             (a.expires_at IS NOT NULL AND a.expires_at <= now()) AS expired, a.last_used_at,
             w.plan, w.rate_limit_per_min, w.concurrency,
             svc_plan_figure(w.plan, w.rate_limit_per_min, ${KEY_FIGURES}::jsonb) AS key_quota
        FROM api_keys a JOIN workspaces w ON w.id = a.workspace_id
       WHERE a.key_hash = ${opts.keyHash ?? hashApiKey(presented)}
    ), usable AS (
      SELECT * FROM k WHERE NOT revoked AND NOT expired
    )${counts.ctes}
    SELECT k.id, k.workspace_id, k.scopes, k.revoked, k.expired, k.plan, k.rate_limit_per_min, k.concurrency, k.key_quota,
           ${counts.columns}
      FROM k${counts.joins}`,
  );
  const row = rows[0];
  if (!row) throw new AppError('invalid_api_key', 'The API key is not valid');
  if (row.revoked) throw new AppError('api_key_revoked', 'The API key has been revoked');
  if (row.expired) throw new AppError('api_key_expired', 'The API key has expired');
  const limits = workspaceLimits({ plan: row.plan, rateLimitPerMin: row.rate_limit_per_min, concurrency: row.concurrency });
  if (limits.keyPerMin !== row.key_quota)
    throw new Error(`rate-limit figure drift for plan ${row.plan}: SQL ${row.key_quota}, workspaceLimits ${limits.keyPerMin}`);
  const key = counter(limits.keyPerMin, row.key_points, row.key_expire);
  if (take > 0 && !key) throw new Error('the key counter was not taken');
  return {
    principal: { keyId: row.id, workspaceId: row.workspace_id, scopes: row.scopes.filter(isScope), limits },
    key,
    workspace: counter(limits.workspacePerMin, row.ws_points, row.ws_expire),
    taken: take,
  };
}

/** The statement's counting parts: CTEs after `usable`, the counters' columns, their joins. */
interface Counting {
  ctes: Prisma.Sql;
  columns: Prisma.Sql;
  joins: Prisma.Sql;
}

/** A read-only key check: no counter is written, and "last used" waits for a counting one. */
const NOT_COUNTING: Counting = {
  ctes: Prisma.empty,
  columns: Prisma.sql`NULL AS key_points, NULL AS key_expire, NULL AS ws_points, NULL AS ws_expire`,
  joins: Prisma.empty,
};

/**
 * `take` points from the key's counter, then the same from the workspace's when the key's
 * figure still allows this request (so a key over its own figure never touches its workspace's
 * count), and "last used" at most once a minute.
 */
function counting(now: number, take: number): Counting {
  const windowEnd = windowEndFrom(now);
  return {
    ctes: Prisma.sql`, kc AS (${takePointsSql(
      Prisma.sql`SELECT 'key:' || id, ${take}::int, ${windowEnd}::bigint FROM usable`,
      now,
    )}), wc AS (${takePointsSql(
      Prisma.sql`SELECT 'ws:' || usable.workspace_id, ${take}::int, ${windowEnd}::bigint FROM usable, kc WHERE kc.points - ${take}::int < usable.key_quota`,
      now,
    )}), touched AS (
      UPDATE api_keys SET last_used_at = now()
       WHERE id = (SELECT id FROM usable) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
    )`,
    columns: Prisma.sql`kc.points AS key_points, kc.expire AS key_expire, wc.points AS ws_points, wc.expire AS ws_expire`,
    joins: Prisma.sql` LEFT JOIN kc ON true LEFT JOIN wc ON true`,
  };
}
