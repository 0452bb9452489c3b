/**
 * The performance floor (DESIGN.md): what a user would write by hand with the Temporal SDK for
 * the bench's one-step transform workflow, in its two shapes. Bundled by floor/worker.ts.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities, GreetInput, Greeting } from './activities';

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
