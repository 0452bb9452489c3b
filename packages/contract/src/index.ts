export * from './common';
export * from './runs';
export * from './workflows';
export * from './hooks';
export { buildOpenApiDocument, deprecatedOperations, pathMethods } from './openapi';
export type { BuildOptions, OpenApiDocument, OpenApiHelpers, OperationSpec } from './openapi';
export * from './deprecation';
export * from './reviews';
export * from './webhooks';
