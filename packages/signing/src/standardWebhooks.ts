import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from './webhookSignature';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), sent beside `Svc-Signature`:
 *
 *     webhook-id: <event id>
 *     webhook-timestamp: <unix seconds>
 *     webhook-signature: v1,<base64>[ v1,<base64>…]
 *
 * `<base64>` is the standard base64 HMAC-SHA256 of `"<id>.<timestamp>.<raw body>"`; during a
 * rotation overlap there is one `v1,…` per valid secret, space-separated, newest first.
 */

/** Key bytes of a new secret; the specification asks for 24 to 64. */
const KEY_BYTES = 32;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `whsec_` + standard base64 of 32 CSPRNG key bytes, the secret form the specification defines. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(KEY_BYTES).toString('base64');
}

/**
 * The HMAC key of a secret for Standard Webhooks. A secret in the specification's form
 * (`whsec_` + canonical standard base64 of 24–64 bytes) is keyed with the decoded bytes.
 * Secrets issued in the earlier form (`whsec_` + 43 base64url characters, never canonical
 * base64) are keyed with the UTF-8 bytes of the whole string as written, as `Svc-Signature` is.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : null;
  if (encoded !== null && STANDARD_BASE64.test(encoded)) {
    const key = Buffer.from(encoded, 'base64');
    // The round trip refuses non-zero padding bits, which lenient decoders read differently.
    if (key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES && key.toString('base64') === encoded) return key;
  }
  return Buffer.from(secret, 'utf8');
}

export interface SignStandardWebhookArgs {
  /** Valid secrets, newest first. */
  secrets: string[];
  /** `webhook-id`: the event id (never contains a `.`). */
  id: string;
  /** `webhook-timestamp`: unix seconds, fresh for every attempt. */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: string | Buffer;
}

/** The `webhook-signature` header value for one attempt. */
export function signStandardWebhook(args: SignStandardWebhookArgs): string {
  if (args.secrets.length === 0) throw new Error('at least one secret is needed to sign');
  if (!Number.isSafeInteger(args.timestamp) || args.timestamp < 0) throw new Error('timestamp must be whole unix seconds');
  if (args.id === '' || args.id.includes('.')) throw new Error('the webhook id must be non-empty and contain no "."');
  return args.secrets
    .map((secret) => {
      const mac = createHmac('sha256', standardWebhookKey(secret));
      mac.update(`${args.id}.${args.timestamp}.`);
      mac.update(args.body);
      return `v1,${mac.digest('base64')}`;
    })
    .join(' ');
}
