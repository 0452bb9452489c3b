/**
 * A typed client for the svc API: openapi-fetch over the generated `paths` of schema.d.ts, with
 * a `fetch` built on undici.request. Copy this file and schema.d.ts into your project (or
 * regenerate schema.d.ts from /api/v1/openapi.json with openapi-typescript).
 *
 * Why not Node's global fetch: it always adds `Sec-Fetch-Mode: cors`, and the API refuses every
 * request carrying browser headers (Origin, Sec-Fetch-*) with 403 browser_requests_not_allowed
 * (API.md §2). undici.request sends only the headers you give it.
 */
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { paths } from './schema';

export type { paths, components, operations } from './schema';

/** A `fetch` for openapi-fetch (and anything else taking one) that never adds browser headers. */
export async function undiciFetch(req: Request): Promise<Response> {
  const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
  const res = await request(req.url, {
    method: req.method as Dispatcher.HttpMethod,
    headers: Object.fromEntries(req.headers),
    body,
    signal: req.signal,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const empty = res.statusCode === 204 || res.statusCode === 304 || req.method === 'HEAD';
  if (empty) {
    await res.body.dump();
    return new Response(null, { status: res.statusCode, headers });
  }
  return new Response(Buffer.from(await res.body.arrayBuffer()), { status: res.statusCode, headers });
}

/** A client for one gateway and one API key: `client.GET('/api/v1/runs/{run_id}', { params: { path: { run_id } } })`. */
export function createSvcClient(opts: { baseUrl: string; apiKey: string }): Client<paths> {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ''),
    fetch: undiciFetch,
    headers: { Authorization: `Bearer ${opts.apiKey}` },
  });
}
