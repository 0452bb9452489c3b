import { request } from 'undici';
import type { FloorClient } from './floor/client';
import type { BenchStack, Say } from './stack';
import { round } from './stats';
import { GREET_INPUT } from './tenants';
import type { Tenant, TenantOptions } from './tenants';

/** How long each row measures: `--quick` (a few seconds a row, for the test) or full. */
export interface Profile {
  name: 'quick' | 'full';
  /** Calls per side before measuring (JIT, connection pools, caches). */
  warmup: number;
  /** Runs per side, one at a time, of the `wait: true` row. */
  waitRuns: number;
  /** Seconds per side of the finish, start and read loads, and of the webhook starts. */
  loadSec: number;
  /** How long webhook events are still collected after the last start. */
  collectSec: number;
  /** Seconds of the noisy-neighbour row's tenant alone, and again beside the flood. */
  neighbourSec: number;
  /** The longest wait for the runs a start load left to finish. */
  drainSec: number;
}

export const PROFILES: Record<Profile['name'], Profile> = {
  quick: { name: 'quick', warmup: 5, waitRuns: 10, loadSec: 2, collectSec: 5, neighbourSec: 4, drainSec: 30 },
  full: { name: 'full', warmup: 50, waitRuns: 100, loadSec: 15, collectSec: 30, neighbourSec: 30, drainSec: 180 },
};

/** What every row gets. */
export interface Bench {
  stack: BenchStack;
  floor: FloorClient;
  profile: Profile;
  say: Say;
  tenant(label: string, o?: TenantOptions): Promise<Tenant>;
}

export interface RunAnswer {
  id: string;
  status: string;
}

/** One call of svc's API; throws `HTTP <status> <code>` unless it answers 2xx. */
export async function api<T>(b: Bench, method: 'GET' | 'POST' | 'PUT', url: string, o: { key?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = o.key ? { authorization: `Bearer ${o.key}` } : {};
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url.startsWith('http') ? url : `${b.stack.apiUrl}${url}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode} ${/"code":"([^"]*)"/.exec(text)?.[1] ?? ''}`.trim());
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Starts a run of the tenant's workflow, `wait: true` or not, with its first key unless told. */
export function postRun(b: Bench, t: Tenant, o: { wait: boolean; key?: string }): Promise<RunAnswer> {
  const body = o.wait ? { input: GREET_INPUT, wait: true } : { input: GREET_INPUT };
  return api<RunAnswer>(b, 'POST', `/api/v1/workflows/${t.workflowId}/runs`, { key: o.key ?? t.keys[0], body });
}

/** A `wait: true` run that must come back succeeded. */
export async function succeededRun(b: Bench, t: Tenant): Promise<RunAnswer> {
  const run = await postRun(b, t, { wait: true });
  if (run.status !== 'succeeded') throw new Error(`the run answered ${run.status}`);
  return run;
}

/** What the runs of these workspaces have come to, from svc's tables: counts by outcome, and their steps' time (ms). */
export async function runFigures(b: Bench, workspaceIds: string[]) {
  const { rows } = await b.stack.db.pool.query<Record<string, string | null>>(
    `SELECT count(*) FILTER (WHERE r.status = 'succeeded') AS succeeded, count(*) FILTER (WHERE r.status = 'failed') AS failed,
            count(*) FILTER (WHERE r.status IN ('queued', 'running')) AS unfinished,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) AS step_p50, max(s.ms) AS step_max
       FROM runs r
       LEFT JOIN LATERAL (SELECT EXTRACT(EPOCH FROM finished_at - started_at) * 1000 AS ms FROM run_steps WHERE run_id = r.id) s ON true
      WHERE r.workspace_id = ANY($1)`,
    [workspaceIds],
  );
  const n = (column: string) => round(Number(rows[0][column] ?? Number.NaN), 0);
  return {
    succeeded: n('succeeded'),
    failed: n('failed'),
    unfinished: n('unfinished'),
    stepMsP50: n('step_p50'),
    stepMsMax: n('step_max'),
  };
}

/** Checks `done` every 250 ms for at most `seconds`; answers whether it came true. */
export async function waitUntil(b: Bench, seconds: number, done: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    if (await done()) return true;
    b.stack.assertAlive();
  }
  return done();
}
