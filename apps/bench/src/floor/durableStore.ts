/**
 * The durable floor's state (DESIGN.md's floor, plus what any durable API must do): each run a
 * row in PostgreSQL, in a schema of the bench's own in svc's database. Its workflow carries the
 * run's id, not its data (as svc's does); its one local activity reads the input and writes the
 * output and status back, two statements on a plain `pg` pool. Its webhook path's events and
 * deliveries have tables of their own (durableDelivery.ts).
 */
import type { Pool } from 'pg';
import { floorActivities } from './activities';
import type { GreetInput, Greeting } from './activities';

export const DURABLE_FLOOR_SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS bench_floor;
  CREATE TABLE IF NOT EXISTS bench_floor.runs (
    id text PRIMARY KEY,
    input jsonb NOT NULL,
    status text NOT NULL,
    output jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    webhook_url text
  );
  CREATE TABLE IF NOT EXISTS bench_floor.events (
    id text PRIMARY KEY,
    run_id text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE TABLE IF NOT EXISTS bench_floor.deliveries (
    id text PRIMARY KEY,
    event_id text NOT NULL REFERENCES bench_floor.events (id),
    url text NOT NULL,
    status text NOT NULL,
    attempts int NOT NULL DEFAULT 0,
    last_status int,
    delivered_at timestamptz
  )`;

/** A stored run's transform: its input read, its output computed (not yet written). */
export async function greetStoredInput(pool: Pool, runId: string): Promise<Greeting> {
  const { rows } = await pool.query<{ input: GreetInput }>('SELECT input FROM bench_floor.runs WHERE id = $1', [runId]);
  if (!rows[0]) throw new Error(`run ${runId} not found`);
  return floorActivities.greet(rows[0].input);
}

export function createDurableFloorActivities(pool: Pool) {
  return {
    async greetStored(runId: string): Promise<Greeting> {
      const output = await greetStoredInput(pool, runId);
      await pool.query(`UPDATE bench_floor.runs SET status = 'succeeded', output = $2, finished_at = now() WHERE id = $1`, [runId, output]);
      return output;
    },
  };
}

export type DurableFloorActivities = ReturnType<typeof createDurableFloorActivities>;
