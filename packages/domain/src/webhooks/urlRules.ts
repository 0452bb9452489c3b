import { AppError } from '../errors';
import { createAddressPolicy, parseIp } from '../net/addressPolicy';
import type { AddressPolicy } from '../net/addressPolicy';

/** Operator settings for endpoint URLs: never set by API callers. */
export interface EndpointUrlPolicy {
  /** Plain `http://` allowed (self-hosting, tests). */
  allowHttp: boolean;
  /** Address policy with the operator's allowed CIDRs. */
  addresses: AddressPolicy;
}

export function createEndpointUrlPolicy(opts: { allowHttp?: boolean; allowCidrs?: string[] }): EndpointUrlPolicy {
  return { allowHttp: opts.allowHttp ?? false, addresses: createAddressPolicy({ allowCidrs: opts.allowCidrs ?? [] }) };
}

export const MAX_ENDPOINT_URL_LENGTH = 2048;

function refuse(detail: string): never {
  throw new AppError('url_not_allowed', detail, { errors: [{ path: 'url', message: detail }] });
}

/**
 * Checks an endpoint URL at creation or update and returns it normalized (WHATWG form).
 * `https` only (unless the operator allows http), no credentials, no fragment, and a host
 * that is not a literal loopback, private, link-local, CGNAT, metadata, multicast or reserved
 * address. WHATWG parsing turns `https://2130706433/` or `https://0x7f.1/` into `127.0.0.1`,
 * so those are caught too. Host names are checked at connect time, on every resolved
 * address (the guarded dispatcher), which also defeats DNS rebinding.
 */
export function checkEndpointUrl(text: string, policy: EndpointUrlPolicy): string {
  if (typeof text !== 'string' || text.length === 0) refuse('url is required');
  if (text.length > MAX_ENDPOINT_URL_LENGTH) refuse(`url is longer than ${MAX_ENDPOINT_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    refuse(`Only https URLs are allowed (got ${url.protocol.replace(/:$/, '')})`);
  }
  if (url.username || url.password) refuse('Credentials in the URL are not allowed; the signature authenticates deliveries');
  if (url.hash) refuse('A URL fragment is never sent; remove it');
  if (!url.hostname) refuse('url has no host');
  const host = url.hostname;
  if (parseIp(host)) {
    const verdict = policy.addresses.check(host);
    if (!verdict.allowed) {
      refuse(`${host} is a ${String(verdict.reason).replace(/_/g, '-')} address; webhooks go to public addresses only`);
    }
  } else if (!/^[a-z0-9._-]+$/i.test(host) || host.startsWith('.') || host.includes('..')) {
    refuse(`${host} is not a valid host name`);
  }
  return url.toString();
}
