/**
 * The durable floor's webhook path (durableApi.ts `POST /delivery-runs`): the floor's webhook
 * path (deliveryActivities.ts) as a service that keeps its events and their deliveries must
 * write it by hand. The run's local activity reads its input, then writes its output, its
 * `run.succeeded` event (stamped as its row is written, as svc's) and the event's delivery in
 * one statement, and once that has committed starts the delivery's workflow with the delivery's
 * id. The delivery's local activity reads the event and its URL, POSTs it signed, and writes
 * the attempt's outcome to the delivery's row. Plain `pg` statements on the floor worker's pool.
 */
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Greeting } from './activities';
import { floorDeliveryId, isSuccess, postSignedEvent, startDeliveryOnce } from './deliveryActivities';
import type { FloorEvent } from './deliveryActivities';
import { greetStoredInput } from './durableStore';

/** The run's ending, its event and the event's delivery, together or not at all. */
const END_WITH_EVENT = `
  WITH run AS (
    UPDATE bench_floor.runs SET status = 'succeeded', output = $2, finished_at = now() WHERE id = $1
    RETURNING id, webhook_url),
  event AS (
    INSERT INTO bench_floor.events (id, run_id, data, created_at)
    SELECT 'evt_' || run.id, run.id, $2, clock_timestamp() FROM run RETURNING id)
  INSERT INTO bench_floor.deliveries (id, event_id, url, status)
  SELECT $3, event.id, run.webhook_url, 'pending' FROM event, run`;

const DELIVERY_READ = `
  SELECT d.url, e.id, e.run_id, e.data, e.created_at
    FROM bench_floor.deliveries d JOIN bench_floor.events e ON e.id = d.event_id WHERE d.id = $1`;

export interface DurableDeliveryDeps {
  pool: Pool;
  client: Client;
  deliveryTaskQueue: string;
  secret: string;
}

export function createDurableDeliveryActivities(deps: DurableDeliveryDeps) {
  const { pool } = deps;
  return {
    async greetStoredAndNotify(runId: string): Promise<Greeting> {
      const output = await greetStoredInput(pool, runId);
      // The delivery's id is its workflow's: a retried activity finds both already there.
      const deliveryId = floorDeliveryId(runId);
      await pool.query(END_WITH_EVENT, [runId, output, deliveryId]);
      await startDeliveryOnce(deps.client, {
        workflowType: 'floorDurableDelivery',
        taskQueue: deps.deliveryTaskQueue,
        workflowId: deliveryId,
        args: [deliveryId],
      });
      return output;
    },

    /** One signed POST of the stored event, its outcome written to the delivery's row; anything but a 2xx throws. */
    async deliverStored(deliveryId: string): Promise<void> {
      const { rows } = await pool.query<{ url: string; id: string; run_id: string; data: Greeting; created_at: Date }>(DELIVERY_READ, [
        deliveryId,
      ]);
      const d = rows[0];
      if (!d) throw new Error(`delivery ${deliveryId} not found`);
      const event: FloorEvent = {
        id: d.id,
        type: 'run.succeeded',
        created_at: d.created_at.toISOString(),
        data: { id: d.run_id, output: d.data },
      };
      const status = await postSignedEvent(d.url, event, deps.secret);
      const ok = isSuccess(status);
      await pool.query(
        `UPDATE bench_floor.deliveries SET status = $2, attempts = attempts + 1, last_status = $3,
                delivered_at = CASE WHEN $2 = 'succeeded' THEN now() END WHERE id = $1`,
        [deliveryId, ok ? 'succeeded' : 'pending', status],
      );
      if (!ok) throw new Error(`webhook answered ${status}`);
    },
  };
}

export type DurableDeliveryActivities = ReturnType<typeof createDurableDeliveryActivities>;
