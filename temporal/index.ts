/** Paths and definitions for code outside Temporal (worker, gateway, CLI). */
import { existsSync } from 'node:fs';
import path from 'node:path';

export const workflowsPath = require.resolve('./workflows');

/** The workflow bundle `npm run build` writes next to the compiled code, when present. */
export function prebuiltWorkflowBundlePath(): string | undefined {
  const file = path.join(__dirname, 'workflow-bundle.js');
  return __filename.endsWith('.js') && existsSync(file) ? file : undefined;
}
export { createActivities, createDeliveryQueueActivities, createRunQueueActivities } from './activities';
export type { ActivityDeps, RunActivities } from './activities';
export { connectTemporalClient } from './client/connection';
export type { TemporalClientConfig } from './client/connection';
export { createRunLauncher, runStartOptions } from './client/runLauncher';
export { createRunControl } from './client/runControl';
export { ensureReconciler, reconcilerScheduleId } from './client/reconciler';
export { isTemporalUnavailable } from './client/unavailable';
export { isResourceExhausted } from './client/updateLimit';
export * from './shared/messages';
export * from './shared/runTypes';
export * from './shared/searchAttributes';
export { createDeliveryStarter, startDeliveryRelay } from './client/deliveryStarter';
export type { DeliveryRelay, DeliveryStartBounds, DeliveryStarter, DeliveryStarts } from './client/deliveryStarter';
export { createWebhookRuntime, outboundCa } from './client/webhookRuntime';
export { WEBHOOK_USER_AGENT } from './activities/deliveryActivities';
export type { WebhookRuntime } from './activities/deliveryActivities';
export { createSvcMetrics, STEP_DURATION_BUCKETS } from './activities/metrics';
export type { SvcMetrics } from './activities/metrics';
export * from './shared/deliveryTypes';
