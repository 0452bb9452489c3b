/**
 * The SDK floor's activities: the bench workflow's transform written by hand in plain JS, and its
 * webhook path as a user would write it with the Temporal SDK. The run's activity computes the
 * transform, stamps the `run.succeeded` event and starts its delivery as a workflow of its own
 * (as svc's run starts its delivery after its commit); the delivery POSTs the event signed as
 * svc signs (`Svc-Signature`, packages/signing).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { signWebhook } from '@svc/signing';
import { request } from 'undici';

export interface Greeting {
  greeting: string;
}

/** The event as the bench's receiver reads it. */
export interface FloorEvent {
  id: string;
  type: 'run.succeeded';
  /** When the run settled, ISO 8601 with milliseconds. */
  created_at: string;
  data: { id: string; output: Greeting };
}

export interface DeliveryInput {
  url: string;
  event: FloorEvent;
}

export function createFloorActivities(deps: { client: Client; deliveryTaskQueue: string; secret: string }) {
  const greet = async (input: { name: string }): Promise<Greeting> => ({ greeting: `hello ${input.name}` });
  return {
    greet,

    async greetAndNotify(o: { runId: string; input: { name: string }; webhookUrl: string }): Promise<Greeting> {
      const output = await greet(o.input);
      const event: FloorEvent = {
        id: `evt_${o.runId}`,
        type: 'run.succeeded',
        created_at: new Date().toISOString(),
        data: { id: o.runId, output },
      };
      try {
        // One delivery per run, by its workflow id: a retried activity never delivers twice.
        await deps.client.workflow.start('floorDelivery', {
          taskQueue: deps.deliveryTaskQueue,
          workflowId: `${o.runId}-delivery`,
          args: [{ url: o.webhookUrl, event } satisfies DeliveryInput],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      return output;
    },

    /** One signed POST; anything but a 2xx throws, so the retry policy applies. */
    async deliver({ url, event }: DeliveryInput): Promise<void> {
      const body = JSON.stringify(event);
      const signature = signWebhook({ secrets: [deps.secret], timestamp: Math.floor(Date.now() / 1000), body });
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-signature': signature, 'svc-event-id': event.id },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`webhook answered ${res.statusCode}`);
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
