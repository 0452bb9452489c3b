import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Outbound webhook signatures, the product's own scheme (Standard Webhooks: standardWebhooks.ts):
 *
 *     Svc-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]
 *
 * `<hex>` is the lowercase hex HMAC-SHA256 of `"<t>.<raw body>"`, keyed with the endpoint
 * secret (`whsec_…`) used as the UTF-8 bytes of the whole string as written. During a rotation
 * overlap there is one `v1=` per valid secret, newest first.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Receivers should refuse signatures older (or further in the future) than this. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

function v1(secret: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest('hex');
}

export interface SignWebhookArgs {
  /** Valid secrets, newest first (the current one, then the previous during an overlap). */
  secrets: string[];
  /** Unix time in seconds; fresh for every attempt. */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: string | Buffer;
}

/** The `Svc-Signature` header value for one attempt. */
export function signWebhook(args: SignWebhookArgs): string {
  if (args.secrets.length === 0) throw new Error('at least one secret is needed to sign');
  if (!Number.isSafeInteger(args.timestamp) || args.timestamp < 0) throw new Error('timestamp must be whole unix seconds');
  return [`t=${args.timestamp}`, ...args.secrets.map((s) => `v1=${v1(s, args.timestamp, args.body)}`)].join(',');
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; unknown schemes (`v2=`…) are ignored. Null when malformed. */
export function parseWebhookSignature(header: string | undefined | null): ParsedSignature | null {
  if (typeof header !== 'string' || header.length > 4096) return null;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (/^[0-9a-f]{64}$/.test(value)) signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export type WebhookVerifyFailure = 'malformed' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export interface VerifyWebhookArgs {
  /** The raw request body, byte for byte (never a re-serialized parse). */
  body: string | Buffer;
  /** The `Svc-Signature` header. */
  header: string | undefined | null;
  /** The endpoint secret (`whsec_…`). */
  secret: string;
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** Unix seconds; default now. */
  now?: number;
}

/** Checks a signature in constant time; `{ok: false, reason}` explains a refusal. */
export function verifyWebhook(args: VerifyWebhookArgs): { ok: true; timestamp: number } | { ok: false; reason: WebhookVerifyFailure } {
  const parsed = parseWebhookSignature(args.header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const now = args.now ?? Math.floor(Date.now() / 1000);
  const tolerance = args.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - parsed.timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(v1(args.secret, parsed.timestamp, args.body), 'hex');
  let match = false;
  for (const sig of parsed.signatures) {
    // Every candidate is compared (no early exit), each in constant time.
    if (timingSafeEqual(expected, Buffer.from(sig, 'hex'))) match = true;
  }
  return match ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no_matching_signature' };
}
