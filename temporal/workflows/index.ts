// The one barrel the worker bundles: deterministic code only.
export { runWorkflow } from './runWorkflow';
export { deliveryWorkflow } from './deliveryWorkflow';
export { reconcilerWorkflow } from './reconciler';
