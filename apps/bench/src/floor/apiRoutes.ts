/**
 * The API floor's routes on the durable floor's API (durableApi.ts; its run's state and step in
 * apiStore.ts): `PUT /api-workflows/{workflowId}` registers a workflow of one transform step with
 * its workspace, key and figures before the load (as svc's gateway caches its workflows'
 * versions); `POST /api-runs/{workflowId} {input}` with `Authorization: Bearer <key>` is a
 * `wait: true` start of it: the key checked (401) and its counts and the workspace's taken (429),
 * the input checked against the input_schema (422), the run and its step written in one
 * statement, its workflow started by update-with-start carrying the caller's wait as the contract
 * floor's is, then the run with its steps read and answered.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import express from 'express';
import type { Pool } from 'pg';
import { CONTRACT_RUN_ID, CONTRACT_RUN_STATUS, CONTRACT_WORKFLOW_ID, CONTRACT_WORKSPACE_ID, contractWait } from './contract';
import type { floorApi } from './workflows';

/** A workflow of the API floor as the bench registers it. */
export interface ApiFloorWorkflow {
  workspaceId: string;
  key: string;
  /** Requests a minute, for the key and for the workspace. */
  ratePerMin: number;
  concurrency: number;
  inputSchema: object;
  stepKey: string;
  expression: string;
}

interface Registered extends ApiFloorWorkflow {
  validate: ValidateFunction;
}

const RUN_INSERT = `
  WITH run AS (
    INSERT INTO bench_floor.api_runs (id, workspace_id, workflow_id, status, input) VALUES ($1, $2, $3, 'queued', $4) RETURNING id)
  INSERT INTO bench_floor.api_run_steps (run_id, key, type, status) SELECT run.id, $5, 'transform', 'pending' FROM run`;

const RUN_READ = `
  SELECT r.id, r.workflow_id, r.status, r.input, r.output, r.created_at, r.started_at, r.finished_at,
         (SELECT json_agg(json_build_object('key', s.key, 'type', s.type, 'status', s.status, 'output', s.output,
                  'started_at', s.started_at, 'finished_at', s.finished_at))
            FROM bench_floor.api_run_steps s WHERE s.run_id = r.id) AS steps
    FROM bench_floor.api_runs r WHERE r.id = $1`;

/** Fixed one-minute windows of requests, by counter name, in this process. */
function minuteCounters() {
  const windows = new Map<string, { endsAt: number; count: number }>();
  return (name: string, limit: number, now: number): boolean => {
    let w = windows.get(name);
    if (!w || w.endsAt <= now) windows.set(name, (w = { endsAt: now + 60_000, count: 0 }));
    return ++w.count <= limit;
  };
}

export function apiFloorRoutes(deps: { pool: Pool; client: Client; taskQueue: string; waitMs: number }): express.Router {
  const { pool, client, taskQueue, waitMs } = deps;
  const ajv = new Ajv();
  const workflows = new Map<string, Registered>();
  const count = minuteCounters();
  const problem = (res: express.Response, status: number, code: string) => res.status(status).json({ status, code });
  const router = express.Router();

  router.put('/api-workflows/:workflowId', express.json(), async (req, res, next) => {
    try {
      const wf = req.body as ApiFloorWorkflow;
      await pool.query(
        `WITH k AS (INSERT INTO bench_floor.api_keys (key_hash, workspace_id) VALUES ($1, $2) ON CONFLICT DO NOTHING)
         INSERT INTO bench_floor.api_slots (workspace_id, concurrency) VALUES ($2, $3) ON CONFLICT DO NOTHING`,
        [sha256(wf.key), wf.workspaceId, wf.concurrency],
      );
      workflows.set(req.params.workflowId, { ...wf, validate: ajv.compile(wf.inputSchema) });
      res.status(204).end();
    } catch (err) {
      next(err);
    }
  });

  router.post('/api-runs/:workflowId', express.json(), async (req, res, next) => {
    try {
      const presented = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
      const { rows: keys } = presented
        ? await pool.query<{ workspace_id: string }>('SELECT workspace_id FROM bench_floor.api_keys WHERE key_hash = $1 AND NOT revoked', [
            sha256(presented),
          ])
        : { rows: [] };
      const workspaceId = keys[0]?.workspace_id;
      if (!workspaceId) return void problem(res, 401, 'invalid_api_key');
      const workflowId = req.params.workflowId;
      const wf = workflows.get(workflowId);
      if (!wf || wf.workspaceId !== workspaceId) return void problem(res, 404, 'not_found');
      const now = Date.now();
      if (!count(`key:${presented}`, wf.ratePerMin, now) || !count(`ws:${workspaceId}`, wf.ratePerMin, now)) {
        return void problem(res, 429, 'rate_limited');
      }
      const input = (req.body as { input?: unknown }).input;
      if (!wf.validate(input)) return void problem(res, 422, 'validation_failed');

      const runId = `run_${randomUUID()}`;
      await pool.query(RUN_INSERT, [runId, workspaceId, workflowId, JSON.stringify(input), wf.stepKey]);
      await client.workflow.executeUpdateWithStart(contractWait, {
        args: [waitMs],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof floorApi>('floorApi', {
          workflowId: runId,
          taskQueue,
          args: [{ runId, workspaceId, stepKey: wf.stepKey, expression: wf.expression }],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          staticSummary: `bench-greet · ${workspaceId} · ${runId}`,
          typedSearchAttributes: [
            { key: CONTRACT_RUN_ID, value: runId },
            { key: CONTRACT_WORKSPACE_ID, value: workspaceId },
            { key: CONTRACT_WORKFLOW_ID, value: workflowId },
            { key: CONTRACT_RUN_STATUS, value: 'queued' },
          ],
        }),
      });
      const { rows } = await pool.query(RUN_READ, [runId]);
      res.status(201).json(rows[0]);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

function sha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
