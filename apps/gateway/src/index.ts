export { createApp } from './app';
export type { GatewayDeps, Readiness } from './deps';
export { createGatewayDeps } from './wiring';
export { createRateLimiter } from './ratelimit/limiter';
export type { RateLimiter } from './ratelimit/limiter';
