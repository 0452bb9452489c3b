import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { GREET_INPUT } from '../tenants';
import type { floorRunWithDelivery, floorTransform } from './workflows';

/** The SDK floor as a user calls it: through the bench's Temporal client, on the floor worker's task queue. */
export function floorClient(client: Client, taskQueue: string) {
  return {
    /** `client.workflow.execute` of the one-step transform: returns once it has completed. */
    execute: async (): Promise<void> => {
      const result = await client.workflow.execute<typeof floorTransform>('floorTransform', {
        taskQueue,
        workflowId: `floor-${randomUUID()}`,
        args: [GREET_INPUT],
      });
      if (result.greeting !== `hello ${GREET_INPUT.name}`) throw new Error(`the floor answered ${JSON.stringify(result)}`);
    },

    /** Starts a run whose `run.succeeded` event is delivered to `webhookUrl`; answers its id (the event's `data.id`). */
    startWithDelivery: async (webhookUrl: string): Promise<string> => {
      const workflowId = `floor-${randomUUID()}`;
      await client.workflow.start<typeof floorRunWithDelivery>('floorRunWithDelivery', {
        taskQueue,
        workflowId,
        args: [{ ...GREET_INPUT, webhookUrl }],
      });
      return workflowId;
    },
  };
}

export type FloorClient = ReturnType<typeof floorClient>;
