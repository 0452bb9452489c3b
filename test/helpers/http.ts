import { request } from 'undici';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * A server-side HTTP call, as an integrator's backend makes it. Node's global `fetch`
 * cannot be used against the API: it always adds `Sec-Fetch-Mode: cors`, which the API
 * refuses as a browser request (API.md §2).
 */
export async function call(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<HttpAnswer> {
  const res = await request(url, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers,
    body: opts.body,
    signal: opts.signal,
  });
  const text = await res.body.text();
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.statusCode, headers, body };
}
