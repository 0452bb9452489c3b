-- Rate-limit counters shared by every gateway instance, written by
-- rate-limiter-flexible's RateLimiterPostgres (created here, so the gateway passes
-- `tableCreated: true`). The columns, their order and types are the ones the library's
-- own CREATE TABLE uses and its `INSERT ... VALUES ($1, $2, $3)` relies on:
--   key     "<dimension>:<id>", e.g. "key:key_...", "ws:ws_...", "ip:127.0.0.1"
--   points  requests counted in the current window
--   expire  end of the current fixed window, in ms since the epoch
-- Not a Prisma model: only the limiter reads and writes it, through the pg pool.
CREATE TABLE "rate_limits" (
    key varchar(255) PRIMARY KEY,
    points integer NOT NULL DEFAULT 0,
    expire bigint
);

-- The gateways delete rows whose window ended over an hour ago.
CREATE INDEX "rate_limits_expire_idx" ON "rate_limits" (expire);
