/**
 * The SDK floor: what a user would write by hand with the Temporal SDK for the bench's one-step
 * transform workflow (one local activity), and for the same run followed by a signed webhook of
 * its result, delivered by a workflow of its own. Bundled by floor/worker.ts.
 */
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { DeliveryInput, FloorActivities, Greeting } from './activities';

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

export async function floorTransform(input: { name: string }): Promise<Greeting> {
  return local.greet(input);
}

export async function floorRunWithDelivery(input: { name: string; webhookUrl: string }): Promise<Greeting> {
  const { webhookUrl, ...greet } = input;
  return local.greetAndNotify({ runId: workflowInfo().workflowId, input: greet, webhookUrl });
}

// A receiver that is down is tried again with backoff, as svc's deliveries are.
const delivery = proxyLocalActivities<FloorActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 150 },
});

export async function floorDelivery(input: DeliveryInput): Promise<void> {
  await delivery.deliver(input);
}
