import type { Config, Logger } from '@svc/config';
import type { Db, PreparedSql } from '@svc/db';
import type { RunControl, RunLauncher, SettleNotices } from '@svc/domain';
import type { ReviewLinkSigner } from '@svc/signing';
import type { LiveHub } from './console/live';
import type { RateLimiter } from './ratelimit/limiter';

export interface Readiness {
  /** Resolves when the dependency answers; rejects otherwise. */
  database(): Promise<void>;
  temporal(): Promise<void>;
  /** True once the gateway was told to stop: it still serves, but is no longer ready. */
  draining?(): boolean;
}

export interface GatewayDeps {
  config: Config;
  prisma: Db;
  /** Named statements for the hot paths: every request's key check and rate limits. */
  sql: PreparedSql;
  /** Named statements on pooled connections: a run's read, which may be large. */
  pooledSql: PreparedSql;
  launcher: RunLauncher;
  /** PostgreSQL's notices of runs settling, which end `wait: true` early (startRun.ts). */
  settleNotices?: SettleNotices;
  /** Cancel and review decisions, as messages to the run's workflow. */
  control: RunControl;
  /** Verifies the signed links of the review page. */
  reviewLinks: ReviewLinkSigner;
  logger: Logger;
  readiness: Readiness;
  /** Rate limits shared by every gateway instance (ratelimit/limiter.ts createRateLimiter). */
  rateLimiter: RateLimiter;
  /** The console's live pages (console/live.ts); made by createApp when not given (and then never closed). */
  live?: LiveHub;
}
