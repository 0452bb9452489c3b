#!/usr/bin/env node
/**
 * The durable floor's API, a process of its own started by the bench (stack.ts): the least an
 * HTTP service that keeps its runs in PostgreSQL and runs them on Temporal must do, written by
 * hand with Express, `pg` and the Temporal client. `POST /runs {input}` writes the run's row,
 * executes floorDurable (its id only) and answers the row as the workflow left it: svc's
 * `wait: true` without svc's API (no key, rate limit, input schema, idempotency, steps, slots,
 * events, update-with-start or search attributes). `POST /contract-runs {input}` is the same with
 * what svc's contract asks of a run's workflow on Temporal (the contract floor, floorContract):
 * started by update-with-start carrying the caller's wait, with svc's four search attributes and a
 * static summary, its status kept current. `POST /svc-starts/{workflowId} {input}` is the start
 * row's durable floor: it writes svc's own run rows as the SDK baseline prepares them (sdk.ts), in
 * one statement, and starts svc's run workflow as the SDK baseline does, then answers the run's
 * id: an SDK start behind the least HTTP API that keeps its runs (no key, rate limit, input
 * schema, idempotency or queue cap). The workflow's launch is registered before the load with
 * `PUT /svc-starts/{workflowId}`, as svc's gateway caches its workflows' versions.
 * `POST /delivery-runs {input, webhookUrl}` is the webhook row's durable floor: it writes the
 * run's row with the URL its `run.succeeded` event goes to and starts floorDurableWithDelivery,
 * whose event and delivery are kept in PostgreSQL too (durableDelivery.ts), then answers the
 * run's id. `PUT /api-workflows/{workflowId}` and `POST /api-runs/{workflowId}` are the API floor's,
 * the contract floor's run with what svc's API asks of it too (apiRoutes.ts, apiStore.ts).
 * `GET /svc-runs/{runId}` is the read row's floor: svc's run and its steps read in one statement
 * on the same plain pool and answered as JSON (no key, rate limit or view). Configured by
 * environment: DURABLE_FLOOR_PORT, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * FLOOR_TASK_QUEUE, SVC_TASK_QUEUE.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { newId } from '@svc/domain';
import type { LaunchRequest } from '@svc/domain';
import { RUN_WORKFLOW_TYPE, runStartOptions } from '@svc/temporal';
import type { runWorkflow } from '@svc/temporal/dist/workflows/runWorkflow';
import express from 'express';
import { Pool } from 'pg';
import { apiFloorRoutes } from './apiRoutes';
import { API_FLOOR_SCHEMA } from './apiStore';
import { CONTRACT_RUN_ID, CONTRACT_RUN_STATUS, CONTRACT_WORKFLOW_ID, CONTRACT_WORKSPACE_ID, contractWait } from './contract';
import { DURABLE_FLOOR_SCHEMA } from './durableStore';
import type { floorContract, floorDurable, floorDurableWithDelivery } from './workflows';

/** How long a contract run's caller waits for it, as svc's `wait: true` at most. */
const WAIT_MS = 25_000;

/** svc's run and its steps, the columns the SDK baseline writes (sdk.ts prepare), in one statement. */
const SVC_RUN_INSERT = `
  WITH run AS (
    INSERT INTO runs (id, workspace_id, workflow_id, workflow_version, status, input, trigger, temporal_workflow_id)
    VALUES ($1, $2, $3, $4, 'queued', $5, 'api', $1) RETURNING id)
  INSERT INTO run_steps (run_id, key, name, type, position)
  SELECT run.id, s.key, s.name, s.type, s.position
    FROM run, jsonb_to_recordset($6::jsonb) AS s(key text, name text, type text, position int)`;

/** svc's run with its steps, the fields its API shows, as one JSON row (the read floor). */
const SVC_RUN_READ = `
  SELECT r.id, r.workflow_id, r.workflow_version, r.status, r.input, r.output, r.error, r.trigger,
         r.created_at, r.started_at, r.finished_at,
         (SELECT json_agg(json_build_object('key', s.key, 'name', s.name, 'type', s.type, 'status', s.status,
                  'attempts', s.attempts, 'started_at', s.started_at, 'finished_at', s.finished_at,
                  'output', s.output, 'error', s.error) ORDER BY s.position)
            FROM run_steps s WHERE s.run_id = r.id) AS steps
    FROM runs r WHERE r.id = $1`;

/** A workflow of svc's as the gateway launches its runs (`PUT /svc-starts/{workflowId}`). */
export type SvcLaunch = Omit<LaunchRequest, 'runId' | 'temporalWorkflowId' | 'input'>;

async function main(): Promise<void> {
  const { DURABLE_FLOOR_PORT, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, FLOOR_TASK_QUEUE, SVC_TASK_QUEUE } = process.env;
  if (!DURABLE_FLOOR_PORT || !DATABASE_URL || !TEMPORAL_ADDRESS || !TEMPORAL_NAMESPACE || !FLOOR_TASK_QUEUE || !SVC_TASK_QUEUE) {
    throw new Error('set DURABLE_FLOOR_PORT, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, FLOOR_TASK_QUEUE and SVC_TASK_QUEUE');
  }
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
  await pool.query(DURABLE_FLOOR_SCHEMA);
  await pool.query(API_FLOOR_SCHEMA);
  const client = new Client({ connection: await Connection.connect({ address: TEMPORAL_ADDRESS }), namespace: TEMPORAL_NAMESPACE });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  /** Writes the run's row, has `execute` run its workflow to the end, then answers the row. */
  const route = (execute: (id: string) => Promise<unknown>): express.RequestHandler => {
    return async (req, res, next) => {
      try {
        const id = `run_${randomUUID()}`;
        await pool.query(`INSERT INTO bench_floor.runs (id, input, status) VALUES ($1, $2, 'queued')`, [
          id,
          (req.body as { input: unknown }).input,
        ]);
        await execute(id);
        const { rows } = await pool.query('SELECT * FROM bench_floor.runs WHERE id = $1', [id]);
        res.status(201).json(rows[0]);
      } catch (err) {
        next(err);
      }
    };
  };
  app.post(
    '/runs',
    express.json(),
    route((id) =>
      client.workflow.execute<typeof floorDurable>('floorDurable', { workflowId: id, taskQueue: FLOOR_TASK_QUEUE, args: [{ runId: id }] }),
    ),
  );
  app.post(
    '/contract-runs',
    express.json(),
    route((id) =>
      client.workflow.executeUpdateWithStart(contractWait, {
        args: [WAIT_MS],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof floorContract>('floorContract', {
          workflowId: id,
          taskQueue: FLOOR_TASK_QUEUE,
          args: [{ runId: id }],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          staticSummary: `bench-greet v1 · ws_floor · ${id}`,
          typedSearchAttributes: [
            { key: CONTRACT_RUN_ID, value: id },
            { key: CONTRACT_WORKSPACE_ID, value: 'ws_floor' },
            { key: CONTRACT_WORKFLOW_ID, value: 'wf_floor' },
            { key: CONTRACT_RUN_STATUS, value: 'queued' },
          ],
        }),
      }),
    ),
  );
  // The durable floor's webhook path: the run's row with the URL its event goes to, then a
  // start (no wait), as the webhook row's runs are started through svc's API.
  app.post('/delivery-runs', express.json(), async (req, res, next) => {
    try {
      const id = `run_${randomUUID()}`;
      const { input, webhookUrl } = req.body as { input: unknown; webhookUrl: string };
      await pool.query(`INSERT INTO bench_floor.runs (id, input, status, webhook_url) VALUES ($1, $2, 'queued', $3)`, [
        id,
        input,
        webhookUrl,
      ]);
      await client.workflow.start<typeof floorDurableWithDelivery>('floorDurableWithDelivery', {
        workflowId: id,
        taskQueue: FLOOR_TASK_QUEUE,
        args: [{ runId: id }],
      });
      res.status(201).json({ id });
    } catch (err) {
      next(err);
    }
  });
  // The launch of each bench workflow, registered before the load (as svc's gateway caches them).
  const launches = new Map<string, SvcLaunch>();
  app.put('/svc-starts/:workflowId', express.json(), (req, res) => {
    launches.set(req.params.workflowId, req.body as SvcLaunch);
    res.status(204).end();
  });
  app.post('/svc-starts/:workflowId', express.json(), async (req, res, next) => {
    try {
      const launch = launches.get(req.params.workflowId);
      if (!launch) {
        res.status(404).end();
        return;
      }
      const { input } = req.body as { input: unknown };
      const runId = newId('run');
      const steps = launch.definition.steps.map((s, position) => ({ key: s.key, name: s.name, type: s.type, position }));
      await pool.query(SVC_RUN_INSERT, [
        runId,
        launch.workspaceId,
        launch.workflowId,
        launch.workflowVersion,
        input,
        JSON.stringify(steps),
      ]);
      await client.workflow.start<typeof runWorkflow>(
        RUN_WORKFLOW_TYPE,
        runStartOptions({ ...launch, input, runId, temporalWorkflowId: runId }, SVC_TASK_QUEUE),
      );
      res.status(201).json({ id: runId });
    } catch (err) {
      next(err);
    }
  });
  app.use(apiFloorRoutes({ pool, client, taskQueue: FLOOR_TASK_QUEUE, waitMs: WAIT_MS }));
  app.get('/svc-runs/:runId', async (req, res, next) => {
    try {
      const { rows } = await pool.query(SVC_RUN_READ, [req.params.runId]);
      if (rows[0]) res.json(rows[0]);
      else res.status(404).end();
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
