export { createApp } from './app';
export type { GatewayDeps, Readiness } from './deps';
export { createGatewayDeps } from './wiring';
export { createRateLimiter } from './ratelimit/limiter';
export type { RateLimiter } from './ratelimit/limiter';
export { consoleRouter } from './console/router';
export { MEMBER_WRITES } from './console/roles';
export { clientAddresses } from './middleware/clientAddress';
