// The one barrel the worker bundles: deterministic code only.
export { runWorkflow, runWorkflowV2 } from './runWorkflow';
export { deliveryWorkflow, deliveryWorkflowV2, deliveryWorkflowV3 } from './deliveryWorkflow';
export { reconcilerWorkflow } from './reconciler';
