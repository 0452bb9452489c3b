import { request } from 'undici';
import type { Dispatcher } from 'undici';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * A server-side HTTP call, as an integrator's backend makes it; over undici.request so the
 * tests choose every header (and the source address through `dispatcher`).
 */
export async function call(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal; dispatcher?: Dispatcher } = {},
): Promise<HttpAnswer> {
  const res = await request(url, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers,
    body: opts.body,
    signal: opts.signal,
    dispatcher: opts.dispatcher,
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

export interface ApiCallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** e.g. an undici Agent with another local address, to call from another client IP */
  dispatcher?: Dispatcher;
}

/** A call to the API of the gateway at `baseUrl`: the key as a Bearer token, `body` sent as JSON. */
export function apiCall(baseUrl: string, method: string, p: string, opts: ApiCallOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  return call(baseUrl + p, { method, headers, body, dispatcher: opts.dispatcher });
}
