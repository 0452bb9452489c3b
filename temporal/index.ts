/** Paths and definitions for code outside Temporal (worker, gateway, CLI). */
export const workflowsPath = require.resolve('./workflows');
export { createActivities } from './activities';
export type { ActivityDeps, RunActivities } from './activities';
export { connectTemporalClient } from './client/connection';
export type { TemporalClientConfig } from './client/connection';
export { createRunLauncher } from './client/runLauncher';
export * from './shared/messages';
export * from './shared/runTypes';
export * from './shared/searchAttributes';
