export { createApp } from './app';
export type { GatewayDeps, Readiness } from './deps';
export { createGatewayDeps } from './wiring';
