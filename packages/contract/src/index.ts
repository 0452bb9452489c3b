export * from './common';
export * from './runs';
export * from './workflows';
export { buildOpenApiDocument } from './openapi';
