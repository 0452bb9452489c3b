/**
 * The performance floor (DESIGN.md): what a user would write by hand with the Temporal SDK for
 * the bench's one-step transform workflow, in its two shapes, and for the same transform
 * followed by a signed webhook of its result, delivered by a workflow of its own; and the durable
 * floor's, whose run lives in PostgreSQL, bare, with svc's Temporal contract, and with its
 * webhook's event and delivery kept there too; and the API floor's, the contract floor's run with
 * what svc's API asks of it too. Bundled by floor/worker.ts.
 */
import {
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { FloorActivities, GreetInput, Greeting } from './activities';
import type { ApiFloorActivities, ApiRunInput } from './apiStore';
import type { DeliveryInput, FloorDeliveryActivities } from './deliveryActivities';
import type { DurableDeliveryActivities } from './durableDelivery';
import type { DurableFloorActivities } from './durableStore';
import { CONTRACT_RUN_STATUS, contractWait } from './contract';

const options = { startToCloseTimeout: '10 seconds' } as const;
const local = proxyLocalActivities<FloorActivities>(options);
const regular = proxyActivities<FloorActivities>(options);

/** The transform as one local activity: the floor the targets are set against. */
export async function floorLocalActivity(input: GreetInput): Promise<Greeting> {
  return local.greet(input);
}

/** The transform as one regular activity. */
export async function floorActivity(input: GreetInput): Promise<Greeting> {
  return regular.greet(input);
}

const stored = proxyLocalActivities<DurableFloorActivities>(options);

/** The durable floor (durableApi.ts): the run's id in, its input and output in PostgreSQL. */
export async function floorDurable(input: { runId: string }): Promise<Greeting> {
  return stored.greetStored(input.runId);
}

/**
 * What svc's contract asks of a run's workflow on Temporal: the caller's wait (contractWait)
 * answers `succeeded` once the run has, or `running` when the wait is over first; at its end the
 * status search attribute is kept current (its start sets the others). Returns the run's end.
 */
function contractRun(): () => void {
  let done = false;
  setHandler(contractWait, async (timeoutMs) => ((await condition(() => done, timeoutMs)) ? 'succeeded' : 'running'));
  return () => {
    done = true;
    upsertSearchAttributes([{ key: CONTRACT_RUN_STATUS, value: 'succeeded' }]);
  };
}

/**
 * The contract floor (durableApi.ts `POST /contract-runs`): the durable floor's run with what
 * svc's contract asks of its workflow on Temporal (contractRun), started by update-with-start
 * with the caller's wait.
 */
export async function floorContract(input: { runId: string }): Promise<Greeting> {
  const succeeded = contractRun();
  const output = await stored.greetStored(input.runId);
  succeeded();
  return output;
}

const api = proxyLocalActivities<ApiFloorActivities>(options);

/**
 * The API floor (apiStore.ts, durableApi.ts `POST /api-runs/{workflowId}`): the contract floor's
 * workflow around a step that takes a slot of the workspace's (or waits a second for one).
 */
export async function floorApi(input: ApiRunInput): Promise<void> {
  const succeeded = contractRun();
  while (!(await api.apiStep(input))) await sleep('1 second');
  succeeded();
}

const withDelivery = proxyLocalActivities<FloorDeliveryActivities>(options);

/**
 * The transform as one local activity that, once it has its result, starts the delivery of the
 * run's `run.succeeded` event (floorDelivery, on the delivery task queue).
 */
export async function floorRunWithDelivery(input: GreetInput & { webhookUrl: string }): Promise<Greeting> {
  const { webhookUrl, ...greet } = input;
  return withDelivery.greetAndNotify({ runId: workflowInfo().workflowId, input: greet, webhookUrl });
}

// A receiver that is down is tried again with backoff, for about a day (1 s doubling to 10 min).
const deliveryOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 150 },
} as const;
const delivery = proxyLocalActivities<FloorDeliveryActivities>(deliveryOptions);

/** One event to one endpoint: a signed POST, retried until a 2xx. */
export async function floorDelivery(input: DeliveryInput): Promise<void> {
  await delivery.deliver(input);
}

const durableWithDelivery = proxyLocalActivities<DurableDeliveryActivities>(options);
const durableDelivery = proxyLocalActivities<DurableDeliveryActivities>(deliveryOptions);

/**
 * The durable floor's webhook path (durableApi.ts `POST /delivery-runs`): the run's id in; its
 * one local activity writes its output, event and delivery, then starts floorDurableDelivery.
 */
export async function floorDurableWithDelivery(input: { runId: string }): Promise<Greeting> {
  return durableWithDelivery.greetStoredAndNotify(input.runId);
}

/** One stored delivery (its id in): a signed POST of its event, its outcome written, retried until a 2xx. */
export async function floorDurableDelivery(deliveryId: string): Promise<void> {
  await durableDelivery.deliverStored(deliveryId);
}
