import type { Client } from '@temporalio/client';
import type { DbHandle } from '@svc/db';
import { request } from 'undici';
import { BENCH_INPUT } from './fixtures';
import type { Tenant } from './fixtures';
import type { FloorBaseline } from './floor/client';
import { httpLoad } from './load';
import type { HttpLoadOptions, LoadResult } from './load';
import type { Profile } from './profile';
import type { RssSampler } from './rss';
import type { BenchStack, Say } from './stack';

/** What every scenario gets. */
export interface BenchContext {
  stack: BenchStack;
  /** The bench's own database handle (setup, the SDK baseline's rows, backlog checks). */
  db: DbHandle;
  /** The bench's own Temporal client (the SDK baselines). */
  temporal: Client;
  /** The hand-written floor workflows, executed through that client. */
  floor: FloorBaseline;
  profile: Profile;
  rss: RssSampler;
  say: Say;
  /**
   * A new workspace (own key, own copy of the bench workflow). Every measurement gets one, so
   * the runs one leaves behind never queue before another's in the workspace's slot keeper.
   */
  newTenant(label: string): Promise<Tenant>;
}

export function authHeaders(key: string, json = false): Record<string, string> {
  return json ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' } : { authorization: `Bearer ${key}` };
}

/** One API call outside the measurements (setup); throws unless the status is expected. */
export async function apiCall<T>(
  ctx: BenchContext,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  opts: { key?: string; body?: unknown; expect: number },
): Promise<T> {
  const headers: Record<string, string> = opts.key ? authHeaders(opts.key, opts.body !== undefined) : {};
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.body.text();
  if (res.statusCode !== opts.expect) throw new Error(`${method} ${url} answered ${res.statusCode}: ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** `POST` here starts a run of the tenant's bench workflow. */
export function runsUrl(ctx: BenchContext, tenant: Tenant): string {
  return `${ctx.stack.apiUrl}/api/v1/workflows/${tenant.workflowId}/runs`;
}

/** A load of `POST /api/v1/workflows/{id}/runs` with the bench input, `wait: true` or not. */
export function runsLoad(
  ctx: BenchContext,
  tenant: Tenant,
  o: Omit<HttpLoadOptions, 'url' | 'method' | 'headers' | 'body'> & { wait: boolean },
): Promise<LoadResult> {
  const { wait, ...load } = o;
  return httpLoad({
    url: runsUrl(ctx, tenant),
    method: 'POST',
    headers: authHeaders(tenant.key, true),
    body: JSON.stringify(wait ? { input: BENCH_INPUT, wait } : { input: BENCH_INPUT }),
    ...load,
  });
}
