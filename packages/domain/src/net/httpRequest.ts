import type { Dispatcher } from 'undici';
import { SSRF_BLOCKED } from './guardedDispatcher';
import { decodeResponseBody } from './responseBody';

export type HttpRequestErrorKind =
  | 'timeout'
  | 'dns'
  | 'connection'
  | 'tls'
  | 'blocked_address'
  | 'too_large'
  | 'invalid_url'
  /** The request itself cannot be sent (bad method, header name or value…). */
  | 'invalid_request';

/**
 * Every failure of {@link performHttpRequest}. The message names the host, never the
 * full URL (paths and queries may carry secrets), and carries no stack trace.
 */
export class HttpRequestError extends Error {
  readonly kind: HttpRequestErrorKind;
  /** The low-level error code, when there was one (e.g. `ECONNREFUSED`). */
  readonly causeCode?: string;

  constructor(kind: HttpRequestErrorKind, message: string, causeCode?: string) {
    super(message);
    this.name = 'HttpRequestError';
    this.kind = kind;
    if (causeCode) this.causeCode = causeCode;
    this.stack = `${this.name}: ${message}`;
  }

  toJSON(): { kind: HttpRequestErrorKind; message: string } {
    return { kind: this.kind, message: this.message };
  }
}

export interface HttpRequestOptions {
  method: string;
  url: string;
  headers?: Record<string, string | number | boolean | null | undefined>;
  /**
   * `undefined`/`null`: no body. A string, Buffer or Uint8Array is sent as is. Anything
   * else is sent as JSON, with `content-type: application/json` unless one is given.
   */
  body?: unknown;
  /** Whole-exchange time limit (connect, headers and body). Default 30 s. */
  timeoutMs?: number;
  /** Use a guarded dispatcher (createGuardedDispatcher) for user-supplied URLs. */
  dispatcher: Dispatcher;
  /** Responses larger than this fail with kind `too_large`. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Optional external cancellation (e.g. Temporal activity cancellation). */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed JSON for JSON content types (text when unparsable), text otherwise; bytes that are neither, base64 (responseBody.ts). */
  body: unknown;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function hostOf(url: URL): string {
  return url.host;
}

function causeChain(err: unknown): Array<{ code?: string; name?: string; message?: string }> {
  const out: Array<{ code?: string; name?: string; message?: string }> = [];
  let cur: unknown = err;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const e = cur as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    out.push({
      code: typeof e.code === 'string' ? e.code : undefined,
      name: typeof e.name === 'string' ? e.name : undefined,
      message: typeof e.message === 'string' ? e.message : undefined,
    });
    cur = e.cause;
  }
  return out;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** Maps a low-level failure to an {@link HttpRequestError}. */
export function toHttpRequestError(err: unknown, url: URL, timedOut: boolean, timeoutMs: number): HttpRequestError {
  if (err instanceof HttpRequestError) return err;
  const host = hostOf(url);
  const chain = causeChain(err);
  const codes = chain.map((c) => c.code).filter((c): c is string => !!c);
  const first = codes[0];

  const blocked = chain.find((c) => c.code === SSRF_BLOCKED);
  if (blocked) return new HttpRequestError('blocked_address', blocked.message ?? `Refusing to connect to ${host}`, SSRF_BLOCKED);
  if (timedOut) return new HttpRequestError('timeout', `Request to ${host} timed out after ${timeoutMs} ms`, first);
  if (codes.some((c) => c === 'UND_ERR_CONNECT_TIMEOUT' || c === 'ETIMEDOUT')) {
    return new HttpRequestError('timeout', `Connecting to ${host} timed out`, first);
  }
  if (codes.some((c) => c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT')) {
    return new HttpRequestError('timeout', `Request to ${host} timed out after ${timeoutMs} ms`, first);
  }
  const dns = codes.find((c) => c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'EAI_FAIL' || c === 'ENODATA' || c === 'EAI_NONAME');
  if (dns) return new HttpRequestError('dns', `Could not resolve host ${url.hostname} (${dns})`, dns);
  const tls = codes.find((c) => TLS_CODE.test(c));
  if (tls) return new HttpRequestError('tls', `TLS error talking to ${host} (${tls})`, tls);
  if (codes.includes('UND_ERR_INVALID_ARG') || codes.includes('UND_ERR_NOT_SUPPORTED') || codes.includes('ERR_INVALID_ARG_TYPE')) {
    const msg = chain.find((c) => c.code === 'UND_ERR_INVALID_ARG' || c.code === 'UND_ERR_NOT_SUPPORTED')?.message;
    return new HttpRequestError('invalid_request', `Invalid request to ${host}${msg ? `: ${msg}` : ''}`, first);
  }
  const name = first ? ` (${first})` : '';
  const what =
    first === 'ECONNREFUSED'
      ? 'Connection refused by'
      : first === 'ECONNRESET' || first === 'UND_ERR_SOCKET'
        ? 'Connection closed by'
        : first?.startsWith('HPE_')
          ? 'Invalid HTTP response from'
          : 'Connection to';
  return new HttpRequestError('connection', `${what} ${host}${what === 'Connection to' ? ' failed' : ''}${name}`, first);
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HttpRequestError('invalid_url', 'URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpRequestError('invalid_url', `URL scheme ${url.protocol} is not allowed (only http and https)`);
  }
  if (url.username || url.password) {
    throw new HttpRequestError('invalid_url', 'Credentials in the URL are not supported; send an Authorization header');
  }
  if (!url.hostname) throw new HttpRequestError('invalid_url', 'URL has no host');
  return url;
}

function encodeBody(body: unknown, headers: Record<string, string>): string | Buffer | Uint8Array | null {
  if (body === undefined || body === null) return null;
  const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  if (typeof body === 'string') {
    if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
    return body;
  }
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return body;
  if (!hasType) headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}

/**
 * One HTTP exchange with no redirects followed (a 3xx is returned as is), through the
 * given dispatcher (use the guarded one for anything a user controls).
 */
export async function performHttpRequest(opts: HttpRequestOptions): Promise<HttpResponse> {
  const url = parseUrl(opts.url);
  const method = String(opts.method ?? 'GET').toUpperCase();
  if (!METHOD.test(method) || method === 'CONNECT' || method === 'TRACE') {
    throw new HttpRequestError('invalid_request', `HTTP method ${JSON.stringify(opts.method)} is not allowed`);
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined || v === null) continue;
    headers[k] = String(v);
  }
  const body = encodeBody(opts.body, headers);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new HttpRequestError('timeout', `Request to ${hostOf(url)} timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onOuterAbort = () => controller.abort(opts.signal?.reason);
  if (opts.signal) {
    if (opts.signal.aborted) onOuterAbort();
    else opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  }

  let res: Dispatcher.ResponseData | undefined;
  try {
    res = await opts.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });

    const resHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      resHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }

    const declared = Number(resHeaders['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      throw new HttpRequestError('too_large', `Response from ${hostOf(url)} is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      if (size > maxBytes) {
        throw new HttpRequestError('too_large', `Response from ${hostOf(url)} is larger than ${maxBytes} bytes`);
      }
      chunks.push(buf);
    }
    return { status: res.statusCode, headers: resHeaders, body: decodeResponseBody(Buffer.concat(chunks), resHeaders['content-type']) };
  } catch (err) {
    if (res && !res.body.destroyed) {
      // Destroying an unread body emits an abort error; nobody else is listening.
      res.body.on('error', () => {});
      res.body.destroy();
    }
    if (opts.signal?.aborted && !timedOut) {
      throw new HttpRequestError('connection', `Request to ${hostOf(url)} was cancelled`, 'ABORTED');
    }
    throw toHttpRequestError(err, url, timedOut, timeoutMs);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}
