import { status } from '@grpc/grpc-js';
import { Metadata } from '@grpc/grpc-js';
import { isResourceExhausted, svcGrpcRetryOptions } from './updateLimit';

const refusal = (details: string) => ({ code: status.RESOURCE_EXHAUSTED, details, metadata: new Metadata() });

describe('svcGrpcRetryOptions', () => {
  const { retryableDecider } = svcGrpcRetryOptions();

  it('does not retry an update refused by the in-flight update limit (the server text of Temporal 1.29)', () => {
    expect(retryableDecider(1, refusal('limit on number of concurrent in-flight updates has been reached (10)'))).toBe(false);
  });

  it('keeps the SDK defaults for everything else, other RESOURCE_EXHAUSTED (rate limits) included', () => {
    expect(retryableDecider(1, refusal('namespace rate limit exceeded'))).toBe(true);
    expect(retryableDecider(1, { code: status.UNAVAILABLE, details: 'connection refused', metadata: new Metadata() })).toBe(true);
    expect(retryableDecider(1, { code: status.NOT_FOUND, details: 'workflow not found', metadata: new Metadata() })).toBe(false);
    expect(retryableDecider(10, refusal('namespace rate limit exceeded'))).toBe(false);
  });
});

describe('isResourceExhausted', () => {
  it('finds RESOURCE_EXHAUSTED on an error or among its causes', () => {
    expect(isResourceExhausted(Object.assign(new Error('8 RESOURCE_EXHAUSTED'), { code: 8 }))).toBe(true);
    expect(isResourceExhausted(new Error('ServiceError', { cause: Object.assign(new Error('limit'), { code: 8 }) }))).toBe(true);
    expect(isResourceExhausted(Object.assign(new Error('14 UNAVAILABLE'), { code: 14 }))).toBe(false);
    expect(isResourceExhausted(undefined)).toBe(false);
  });
});
