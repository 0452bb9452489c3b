/**
 * The floor's webhook path, as a user would write it by hand with the Temporal SDK: the run's
 * one local activity computes the transform and, as its result is "committed", starts the
 * event's delivery as a workflow of its own (the way svc's activity starts its delivery
 * workflow after its commit); the delivery's one local activity POSTs the event, signed as
 * API.md §7 says (`Svc-Signature`, packages/signing), to the URL the run was given.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { signWebhook } from '@svc/signing';
import { request } from 'undici';
import type { GreetInput, Greeting } from './activities';

/** The event as svc's receiver sees it (the fields the bench's receiver reads). */
export interface FloorEvent {
  id: string;
  type: 'run.succeeded';
  /** When it was "committed": ISO 8601 with milliseconds. */
  created_at: string;
  data: { id: string; output: Greeting };
}

export interface GreetAndNotifyInput {
  runId: string;
  input: GreetInput;
  webhookUrl: string;
}

export interface DeliveryInput {
  url: string;
  event: FloorEvent;
}

/** The delivery workflow's id: one per run, so a retried activity never delivers twice. */
export const floorDeliveryId = (runId: string) => `${runId}-delivery`;

const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Starts an event's delivery workflow, once: a retried activity finds it started (the delivery's
 * workflow id is its run's, floorDeliveryId).
 */
export async function startDeliveryOnce(
  client: Client,
  opts: { workflowType: string; taskQueue: string; workflowId: string; args: unknown[] },
): Promise<void> {
  try {
    await client.workflow.start(opts.workflowType, { taskQueue: opts.taskQueue, workflowId: opts.workflowId, args: opts.args });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** One POST of the event, signed as svc signs (API.md §7), within the delivery timeout; answers the status. */
export async function postSignedEvent(url: string, event: FloorEvent, secret: string): Promise<number> {
  const body = JSON.stringify(event);
  const signature = signWebhook({ secrets: [secret], timestamp: Math.floor(Date.now() / 1000), body });
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-signature': signature, 'svc-event-id': event.id },
    body,
    signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
  });
  await res.body.dump();
  return res.statusCode;
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

export function createFloorDeliveryActivities(deps: { client: Client; deliveryTaskQueue: string; secret: string }) {
  return {
    async greetAndNotify({ runId, input, webhookUrl }: GreetAndNotifyInput): Promise<Greeting> {
      const output: Greeting = { greeting: `hello ${input.name}` };
      const event: FloorEvent = {
        id: `evt_${runId}`,
        type: 'run.succeeded',
        created_at: new Date().toISOString(),
        data: { id: runId, output },
      };
      await startDeliveryOnce(deps.client, {
        workflowType: 'floorDelivery',
        taskQueue: deps.deliveryTaskQueue,
        workflowId: floorDeliveryId(runId),
        args: [{ url: webhookUrl, event } satisfies DeliveryInput],
      });
      return output;
    },

    /** One signed POST; anything but a 2xx throws, so the activity's retry policy applies. */
    async deliver({ url, event }: DeliveryInput): Promise<void> {
      const status = await postSignedEvent(url, event, deps.secret);
      if (!isSuccess(status)) throw new Error(`webhook answered ${status}`);
    },
  };
}

export type FloorDeliveryActivities = ReturnType<typeof createFloorDeliveryActivities>;
