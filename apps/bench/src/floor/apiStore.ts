/**
 * The API floor's state and its run's local activity (durableApi.ts `POST /api-runs/{workflowId}`,
 * workflows.ts `floorApi`): the contract floor's run with what svc's API asks of the same request
 * (API.md §3–§8), each as cheaply as a hand-written service could do it, so that it is a lower
 * bound on svc's run, not a copy of it. The caller's key is checked by its hash in one read, and
 * its rate limits counted in the API's memory (one process; svc counts in PostgreSQL, for every
 * gateway); the input is checked against the workflow's input_schema with Ajv in the API's own
 * thread, and the step's JSONata expression evaluated in the worker's (svc evaluates both in its
 * sandbox's threads, with a hard deadline); the run's steps are rows of their own; the workspace's
 * concurrency is a counter of slots in use, taken with the run's read and given back with its
 * ending (no line of waiting runs: a run that finds none free tries again after a second); the
 * ending writes the step, the run, the slot, the `run.succeeded` event and a delivery for every
 * endpoint subscribed to it in one statement. Tables of its own, in the bench's schema.
 */
import jsonata from 'jsonata';
import type { Pool } from 'pg';

export const API_FLOOR_SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS bench_floor;
  CREATE TABLE IF NOT EXISTS bench_floor.api_keys (
    key_hash text PRIMARY KEY,
    workspace_id text NOT NULL,
    revoked boolean NOT NULL DEFAULT false
  );
  CREATE TABLE IF NOT EXISTS bench_floor.api_slots (
    workspace_id text PRIMARY KEY,
    used int NOT NULL DEFAULT 0,
    concurrency int NOT NULL
  );
  CREATE TABLE IF NOT EXISTS bench_floor.api_runs (
    id text PRIMARY KEY,
    workspace_id text NOT NULL,
    workflow_id text NOT NULL,
    status text NOT NULL,
    input jsonb NOT NULL,
    output jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz
  );
  CREATE TABLE IF NOT EXISTS bench_floor.api_run_steps (
    run_id text NOT NULL REFERENCES bench_floor.api_runs (id),
    key text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    output jsonb,
    started_at timestamptz,
    finished_at timestamptz,
    PRIMARY KEY (run_id, key)
  );
  CREATE TABLE IF NOT EXISTS bench_floor.api_endpoints (
    id text PRIMARY KEY,
    workspace_id text NOT NULL,
    url text NOT NULL,
    events text[] NOT NULL
  );
  CREATE INDEX IF NOT EXISTS api_endpoints_workspace ON bench_floor.api_endpoints (workspace_id);
  CREATE TABLE IF NOT EXISTS bench_floor.api_events (
    id text PRIMARY KEY,
    workspace_id text NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE TABLE IF NOT EXISTS bench_floor.api_deliveries (
    id text PRIMARY KEY,
    event_id text NOT NULL REFERENCES bench_floor.api_events (id),
    endpoint_id text NOT NULL,
    status text NOT NULL
  )`;

/** A run of the API floor, as its workflow is started: its id, and its one step as the definition gives it. */
export interface ApiRunInput {
  runId: string;
  workspaceId: string;
  stepKey: string;
  expression: string;
}

/**
 * A queued run takes a slot (if one is free) and moves to running, in one statement: its input,
 * or null when no slot was free. A retried attempt (the run already running) takes none and reads it.
 */
const CLAIM_AND_READ = `
  WITH queued AS (
    SELECT input, status FROM bench_floor.api_runs WHERE id = $1),
  slot AS (
    UPDATE bench_floor.api_slots SET used = used + 1
     WHERE workspace_id = $2 AND used < concurrency AND (SELECT status FROM queued) = 'queued' RETURNING 1),
  run AS (
    UPDATE bench_floor.api_runs SET status = 'running', started_at = now()
     WHERE id = $1 AND status = 'queued' AND EXISTS (SELECT 1 FROM slot) RETURNING input)
  SELECT COALESCE((SELECT input FROM run), (SELECT input FROM queued WHERE status = 'running')) AS input`;

/** The step, the run, the slot given back, the event and its deliveries: together or not at all. */
const END_RUN = `
  WITH step AS (
    UPDATE bench_floor.api_run_steps SET status = 'succeeded', output = $3, started_at = $4, finished_at = now()
     WHERE run_id = $1 AND key = $5),
  run AS (
    UPDATE bench_floor.api_runs SET status = 'succeeded', output = $3, finished_at = now()
     WHERE id = $1 AND status = 'running' RETURNING *),
  slot AS (
    UPDATE bench_floor.api_slots SET used = used - 1 WHERE workspace_id = $2 AND EXISTS (SELECT 1 FROM run)),
  event AS (
    INSERT INTO bench_floor.api_events (id, workspace_id, type, data, created_at)
    SELECT 'evt_' || run.id, run.workspace_id, 'run.succeeded', to_jsonb(run), clock_timestamp() FROM run RETURNING id, workspace_id)
  INSERT INTO bench_floor.api_deliveries (id, event_id, endpoint_id, status)
  SELECT event.id || ':' || e.id, event.id, e.id, 'pending'
    FROM event JOIN bench_floor.api_endpoints e ON e.workspace_id = event.workspace_id AND 'run.succeeded' = ANY (e.events)`;

export function createApiFloorActivities(pool: Pool) {
  const compiled = new Map<string, ReturnType<typeof jsonata>>();
  return {
    /** Runs the run's step once it holds a slot: false when none was free (the workflow tries again). */
    async apiStep(run: ApiRunInput): Promise<boolean> {
      const startedAt = new Date();
      const { rows } = await pool.query<{ input: unknown }>(CLAIM_AND_READ, [run.runId, run.workspaceId]);
      if (rows[0].input === null) return false;
      let expression = compiled.get(run.expression);
      if (!expression) compiled.set(run.expression, (expression = jsonata(run.expression)));
      const output: unknown = await expression.evaluate({ input: rows[0].input, steps: {} });
      await pool.query(END_RUN, [run.runId, run.workspaceId, JSON.stringify(output ?? null), startedAt, run.stepKey]);
      return true;
    },
  };
}

export type ApiFloorActivities = ReturnType<typeof createApiFloorActivities>;
