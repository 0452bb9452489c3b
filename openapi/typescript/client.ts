/**
 * A typed client for the svc API: openapi-fetch over the generated `paths` of schema.d.ts, on
 * Node's global fetch. Copy this file and schema.d.ts into your project (or regenerate
 * schema.d.ts from /api/v1/openapi.json with openapi-typescript).
 */
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { paths, components, operations } from './schema';

/** A client for one gateway and one API key: `client.GET('/api/v1/runs/{run_id}', { params: { path: { run_id } } })`. */
export function createSvcClient(opts: { baseUrl: string; apiKey: string }): Client<paths> {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ''),
    headers: { Authorization: `Bearer ${opts.apiKey}` },
  });
}
