import { causeChain } from '@svc/db';

// gRPC status codes (grpc/status.proto): the Temporal server is down, restarting or overloaded.
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** Whether an error, or one of its causes (SDK errors wrap the gRPC one), carries one of these gRPC status codes. */
export function hasGrpcCode(err: unknown, codes: readonly number[]): boolean {
  for (const e of causeChain(err)) if (typeof e.code === 'number' && codes.includes(e.code)) return true;
  return false;
}

/** Whether an error means the Temporal server cannot be reached right now: answer 503, retry later. */
export function isTemporalUnavailable(err: unknown): boolean {
  return hasGrpcCode(err, [GRPC_UNAVAILABLE, GRPC_DEADLINE_EXCEEDED]);
}
