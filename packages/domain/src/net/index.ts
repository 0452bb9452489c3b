export {
  classifyAddress,
  createAddressPolicy,
  createCidrMatcher,
  normalizeCidr,
  parseCidr,
  parseIp,
  type AddressClass,
  type AddressPolicy,
  type AddressPolicyOptions,
  type AddressVerdict,
  type RefusalReason,
} from './addressPolicy';
export {
  BlockedAddressError,
  SSRF_BLOCKED,
  createGuardedDispatcher,
  createGuardedLookup,
  type GuardedDispatcherOptions,
  type LookupAddress,
  type ResolveAll,
} from './guardedDispatcher';
export {
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  HttpRequestError,
  performHttpRequest,
  toHttpRequestError,
  type HttpRequestErrorKind,
  type HttpRequestOptions,
  type HttpResponse,
} from './httpRequest';
export { decodeResponseBody, isJsonContentType } from './responseBody';
