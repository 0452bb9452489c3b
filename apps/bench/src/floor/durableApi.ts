#!/usr/bin/env node
/**
 * The durable floor's API, a process of its own started by the bench (stack.ts): the least an
 * HTTP service that keeps its runs in PostgreSQL and runs them on Temporal must do, written by
 * hand with Express, `pg` and the Temporal client. `POST /runs {input}` writes the run's row,
 * executes floorDurable (its id only) and answers the row as the workflow left it: svc's
 * `wait: true` without svc's API (no key, rate limit, input schema, idempotency, steps, slots,
 * events, update-with-start or search attributes). Configured by environment: DURABLE_FLOOR_PORT,
 * DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, FLOOR_TASK_QUEUE.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import express from 'express';
import { Pool } from 'pg';
import { DURABLE_FLOOR_SCHEMA } from './durableStore';
import type { floorDurable } from './workflows';

async function main(): Promise<void> {
  const { DURABLE_FLOOR_PORT, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, FLOOR_TASK_QUEUE } = process.env;
  if (!DURABLE_FLOOR_PORT || !DATABASE_URL || !TEMPORAL_ADDRESS || !TEMPORAL_NAMESPACE || !FLOOR_TASK_QUEUE) {
    throw new Error('set DURABLE_FLOOR_PORT, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and FLOOR_TASK_QUEUE');
  }
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
  await pool.query(DURABLE_FLOOR_SCHEMA);
  const client = new Client({ connection: await Connection.connect({ address: TEMPORAL_ADDRESS }), namespace: TEMPORAL_NAMESPACE });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/runs', express.json(), async (req, res, next) => {
    try {
      const id = `run_${randomUUID()}`;
      await pool.query(`INSERT INTO bench_floor.runs (id, input, status) VALUES ($1, $2, 'queued')`, [
        id,
        (req.body as { input: unknown }).input,
      ]);
      await client.workflow.execute<typeof floorDurable>('floorDurable', {
        workflowId: id,
        taskQueue: FLOOR_TASK_QUEUE,
        args: [{ runId: id }],
      });
      const { rows } = await pool.query('SELECT * FROM bench_floor.runs WHERE id = $1', [id]);
      res.status(201).json(rows[0]);
    } catch (err) {
      next(err);
    }
  });
  app.listen(Number(DURABLE_FLOOR_PORT), '127.0.0.1', () => {
    process.stdout.write('durable floor listening\n');
  });
}

main().catch((err) => {
  process.stderr.write(`durable floor failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
