import type { Client } from '@temporalio/client';
import { summarize } from './stats';
import type { LatencySummary } from './stats';

/** One delivered event: its delivery workflow, and when it was committed and received (ms). */
export interface DeliverySample {
  deliveryWorkflowId: string;
  eventCreatedAt: number;
  receivedAt: number;
}

/** The split, each part over the sampled events. */
export interface DeliverySplit {
  /** Event committed → delivery workflow started. */
  toStarted: LatencySummary;
  /** Delivery workflow started → its first workflow task picked up by a worker. */
  startedToPickedUp: LatencySummary;
  /** First workflow task picked up → signed request received. */
  pickedUpToReceived: LatencySummary;
}

/**
 * Where a webhook's latency goes, from the delivery workflow's history (Temporal's times, same
 * machine clock): event committed → delivery workflow started (the run's side: the commit, then
 * the start call); started → its first workflow task picked up by a worker (the task queue's
 * wait: dispatch, and any backlog of the delivery worker's pollers and slots); picked up →
 * signed request received (the worker's own work: the attempt, its reads, signing, the POST).
 * Read after the measurement, from at most `max` events spread over the phase.
 */
export async function deliverySplit(client: Client, samples: DeliverySample[], max = 60): Promise<DeliverySplit> {
  const step = Math.max(1, samples.length / max);
  const picked = Array.from({ length: Math.min(max, samples.length) }, (_, i) => samples[Math.floor(i * step)]);
  const times = await Promise.all(
    picked.map(async (s) => {
      const events = (await client.workflow.getHandle(s.deliveryWorkflowId).fetchHistory()).events ?? [];
      const at = (has: (e: (typeof events)[number]) => unknown) => {
        const e = events.find((x) => Boolean(has(x)));
        if (!e?.eventTime) throw new Error(`delivery ${s.deliveryWorkflowId}: its history lacks an event the split needs`);
        return Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6);
      };
      return { started: at((e) => e.workflowExecutionStartedEventAttributes), pickedUp: at((e) => e.workflowTaskStartedEventAttributes) };
    }),
  );
  return {
    toStarted: summarize(picked.map((s, i) => times[i].started - s.eventCreatedAt)),
    startedToPickedUp: summarize(picked.map((_, i) => times[i].pickedUp - times[i].started)),
    pickedUpToReceived: summarize(picked.map((s, i) => s.receivedAt - times[i].pickedUp)),
  };
}
