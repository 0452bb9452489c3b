export * from './common';
export * from './runs';
export * from './workflows';
export * from './hooks';
export { buildOpenApiDocument } from './openapi';
export * from './reviews';
export * from './webhooks';
