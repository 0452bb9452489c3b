import { defaultGrpcRetryOptions } from '@temporalio/client';
import type { GrpcRetryOptions } from '@temporalio/client';
import { AppError } from '@svc/domain';
import { hasGrpcCode } from './unavailable';

// gRPC status RESOURCE_EXHAUSTED: the server refuses for load, e.g. the workflow's limit of
// in-flight updates (dynamic config `history.maxInFlightUpdates`, 10 by default).
const GRPC_RESOURCE_EXHAUSTED = 8;
const IN_FLIGHT_UPDATE_LIMIT = /in-flight updates/i;

/** Seconds a client should wait: waits hold an update for at most the wait timeout, most end far sooner. */
export const UPDATE_LIMIT_RETRY_AFTER_S = 2;

/** Whether Temporal refused a call as overloaded (RESOURCE_EXHAUSTED, anywhere in the error's causes). */
export function isResourceExhausted(err: unknown): boolean {
  return hasGrpcCode(err, [GRPC_RESOURCE_EXHAUSTED]);
}

/** The answer to an update Temporal refused for load: 503 `unavailable` with Retry-After, never 500. */
export function updateRefused(): AppError {
  return new AppError('unavailable', 'The run is receiving too many requests right now; retry shortly', {
    headers: { 'Retry-After': String(UPDATE_LIMIT_RETRY_AFTER_S) },
  });
}

/**
 * The SDK's default gRPC retries, except for a refused update: the in-flight limit frees only when
 * an earlier update completes, so retrying within the request (the SDK would, for ~35 s) only
 * holds the caller; the caller gets 503 with Retry-After at once instead.
 */
export function svcGrpcRetryOptions(): GrpcRetryOptions {
  const base = defaultGrpcRetryOptions();
  return {
    ...base,
    retryableDecider: (attempt, status) =>
      !(status.code === GRPC_RESOURCE_EXHAUSTED && IN_FLIGHT_UPDATE_LIMIT.test(status.details ?? '')) &&
      base.retryableDecider(attempt, status),
  };
}
