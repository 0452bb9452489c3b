import type ipaddr from 'ipaddr.js';
import { hmacSha256Hex, safeEqual } from '@svc/signing';
import type { TriggerSettings } from '../definitions';
import { AppError } from '../errors';
import { assertJsonDepth } from '../shared/jsonDepth';
import { createCidrMatcher, parseIp } from '../net/addressPolicy';

/**
 * The pure checks of an inbound webhook trigger, in the contract's order.
 * Nothing here touches the database or Temporal, so each refusal is decided before any
 * run can exist. Secrets and signatures never appear in an error message.
 */

/** 256 KB: a body of exactly this many bytes is accepted, one byte more is refused (413). */
export const TRIGGER_BODY_LIMIT = 256 * 1024;

export const TRIGGER_SECRET_HEADER = 'x-svc-secret';
export const TRIGGER_SIGNATURE_HEADER = 'x-svc-signature';
/** The optional prefix of `x-svc-signature` (as GitHub and others write it). */
export const SIGNATURE_PREFIX = 'sha256=';

/** Header values as Node hands them over (lower-cased names; arrays only for set-cookie). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * A trigger as the checks need it: its settings and its secrets in clear, each list newest
 * first (after `svc triggers rotate`, the previous secret while its overlap lasts).
 */
export interface TriggerCredentials {
  settings: TriggerSettings;
  secrets: string[];
  signingSecrets: string[];
}

export interface TriggerRequest {
  /** The client address the allowlist is matched against (see `resolveClientIp`). */
  ip: string;
  headers: HeaderBag;
  /** The body exactly as received: the signature is computed over these bytes. */
  rawBody: Buffer;
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** True when a `Content-Length` header already tells the body is over the limit. */
export function declaredLengthExceeds(contentLength: string | undefined, limit = TRIGGER_BODY_LIMIT): boolean {
  if (contentLength === undefined) return false;
  const n = Number(contentLength);
  return !Number.isFinite(n) || n > limit;
}

/** Strips a port from `1.2.3.4:80` and `[::1]:80`; anything else is returned trimmed. */
function stripPort(entry: string): string {
  const s = entry.trim();
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (v6) return v6[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(s);
  return v4 ? v4[1] : s;
}

/**
 * The client address. The socket peer is the client unless it is one of the operator's
 * trusted proxies (`TRUSTED_PROXY_CIDRS`); only then is `X-Forwarded-For` read, right to
 * left, skipping further trusted proxies: the first untrusted entry is the client (all
 * trusted → the leftmost). An unparsable entry stops the walk and is returned as is, so
 * it matches no allowlist (fail closed). IPv4-mapped IPv6 addresses are reported as IPv4.
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  isTrustedProxy: (ip: string) => boolean,
): string {
  const peer = canonicalIp(socketAddress ?? '');
  const xff = one(forwardedFor);
  if (!peer || !isTrustedProxy(peer) || xff === undefined) return peer;
  const hops = xff
    .split(',')
    .map(stripPort)
    .filter((h) => h !== '');
  if (hops.length === 0) return peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = canonicalIp(hops[i]);
    if (!parseIp(ip) || !isTrustedProxy(ip) || i === 0) return ip;
  }
  return peer;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; other addresses unchanged (trimmed). */
export function canonicalIp(text: string): string {
  const addr = parseIp(text);
  if (!addr) return text.trim();
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  }
  return addr.toString();
}

/** An empty allowlist lets every address through; otherwise the address must be inside one CIDR. */
export function ipAllowed(allowlist: readonly string[], ip: string): boolean {
  if (allowlist.length === 0) return true;
  return createCidrMatcher(allowlist)(ip);
}

/**
 * Each required header must be present (`null`: any value, even empty) or carry exactly
 * the configured value (case-sensitive, compared in constant time since such values are
 * often shared tokens). Returns the first failing header name, or null.
 */
export function missingRequiredHeader(required: Record<string, string | null>, headers: HeaderBag): string | null {
  for (const [name, expected] of Object.entries(required)) {
    const got = one(headers[name.toLowerCase()]);
    if (got === undefined) return name;
    if (expected !== null && !safeEqual(got, expected)) return name;
  }
  return null;
}

/** `x-svc-secret` equals the trigger's shared secret (constant time). */
export function secretMatches(expected: string, provided: string | string[] | undefined): boolean {
  const got = one(provided);
  if (got === undefined || got === '') return false;
  return safeEqual(got, expected);
}

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the signing secret string. */
export function computeTriggerSignature(signingSecret: string, rawBody: Buffer | string): string {
  return hmacSha256Hex(signingSecret, rawBody);
}

/**
 * `x-svc-signature` is the lowercase hex HMAC-SHA256 of the raw body, optionally
 * prefixed `sha256=`. Uppercase hex is refused: the contract fixes lowercase, and one
 * canonical form means one comparison (constant time over the whole value).
 */
export function signatureMatches(signingSecret: string, rawBody: Buffer, provided: string | string[] | undefined): boolean {
  let got = one(provided);
  if (got === undefined) return false;
  if (got.startsWith(SIGNATURE_PREFIX)) got = got.slice(SIGNATURE_PREFIX.length);
  const expected = computeTriggerSignature(signingSecret, rawBody);
  // The shape check leaks nothing about the expected value; the comparison is constant-time.
  const wellFormed = /^[0-9a-f]{64}$/.test(got);
  return safeEqual(got, expected) && wellFormed;
}

/** Whether any candidate passes; every candidate is tried, so the time does not tell which one matched. */
function anyOf(candidates: readonly string[], test: (candidate: string) => boolean): boolean {
  return candidates.map(test).includes(true);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body must be sent as `Content-Type: application/json` (charset, if given, utf-8;
 * no `Content-Encoding`) → else 415; it must be well-formed UTF-8 JSON → else 400
 * `invalid_json`; and its value must be an object → else 400 `invalid_request`.
 */
export function parseTriggerBody(headers: HeaderBag, rawBody: Buffer): Record<string, unknown> {
  const contentType = one(headers['content-type']) ?? '';
  const [mediaType, ...params] = contentType.split(';').map((p) => p.trim());
  if (mediaType.toLowerCase() !== 'application/json') {
    throw new AppError('unsupported_media_type', 'Send the body as Content-Type: application/json');
  }
  for (const p of params) {
    const m = /^charset\s*=\s*"?([^";]*)"?$/i.exec(p);
    if (m && !['utf-8', 'utf8'].includes(m[1].toLowerCase())) {
      throw new AppError('unsupported_media_type', 'The body must be UTF-8 encoded JSON');
    }
  }
  const encoding = one(headers['content-encoding'])?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new AppError('unsupported_media_type', 'Content-Encoding is not supported; send the body uncompressed');
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(rawBody));
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON');
  }
  assertJsonDepth(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object', {
      errors: [{ path: 'body', message: 'must be a JSON object' }],
    });
  }
  return value as Record<string, unknown>;
}

/**
 * Checks 2–6 of an inbound trigger (docs/triggers.md; the size limit is enforced while reading; the plan and
 * idempotency come with the start). Throws the first failure; returns the run input.
 */
export function verifyTriggerRequest(trigger: TriggerCredentials, req: TriggerRequest): Record<string, unknown> {
  verifyBeforeBody(trigger, req);
  const provided = req.headers[TRIGGER_SIGNATURE_HEADER];
  if (trigger.settings.signature && !anyOf(trigger.signingSecrets, (s) => signatureMatches(s, req.rawBody, provided))) {
    throw new AppError(
      'invalid_trigger_signature',
      `Send the lowercase hex HMAC-SHA256 of the raw body, keyed with the trigger's signing secret, in the ${TRIGGER_SIGNATURE_HEADER} header`,
    );
  }
  return parseTriggerBody(req.headers, req.rawBody);
}

/**
 * Checks 3–5 of an inbound trigger, which need no body (address, required headers, shared secret): the
 * gateway runs them before it buffers a body, so a stranger cannot make it read one.
 */
export function verifyBeforeBody(trigger: TriggerCredentials, req: Omit<TriggerRequest, 'rawBody'>): void {
  const { settings } = trigger;
  if (!ipAllowed(settings.ip_allowlist, req.ip)) {
    throw new AppError('ip_not_allowed', 'Requests from this address are not allowed for this trigger');
  }
  const missing = missingRequiredHeader(settings.required_headers, req.headers);
  if (missing !== null) {
    // The header's name is not echoed: the owner knows it, a stranger should not learn it.
    throw new AppError('required_header_missing', 'A header this trigger requires is missing or has the wrong value');
  }
  const provided = req.headers[TRIGGER_SECRET_HEADER];
  if (settings.secret && !anyOf(trigger.secrets, (s) => secretMatches(s, provided))) {
    throw new AppError('invalid_trigger_secret', `Send the trigger's shared secret in the ${TRIGGER_SECRET_HEADER} header`);
  }
}
