import type { Client } from '@temporalio/client';
import { summarize } from './stats';
import type { LatencySummary } from './stats';

/** One delivered event: its delivery workflow, and when it was committed and received (ms). */
export interface DeliverySample {
  deliveryWorkflowId: string;
  eventCreatedAt: number;
  receivedAt: number;
}

/**
 * Where a webhook's latency goes, from the delivery workflow's start time (Temporal's, same
 * machine clock): event committed → delivery workflow started (the run's side: the commit, then
 * the start call), and delivery workflow started → signed request received (the delivery's
 * side: its first workflow task, the attempt and the POST). Read after the measurement, from at
 * most `max` events spread over the phase.
 */
export async function deliverySplit(
  client: Client,
  samples: DeliverySample[],
  max = 60,
): Promise<{ toStarted: LatencySummary; startedToReceived: LatencySummary }> {
  const step = Math.max(1, samples.length / max);
  const picked = Array.from({ length: Math.min(max, samples.length) }, (_, i) => samples[Math.floor(i * step)]);
  const started = await Promise.all(picked.map(async (s) => (await client.workflow.getHandle(s.deliveryWorkflowId).describe()).startTime.getTime()));
  return {
    toStarted: summarize(picked.map((s, i) => started[i] - s.eventCreatedAt)),
    startedToReceived: summarize(picked.map((s, i) => s.receivedAt - started[i])),
  };
}
