// gRPC status codes (grpc/status.proto): the Temporal server is down, restarting or overloaded.
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** Whether an error means the Temporal server cannot be reached right now: answer 503, retry later. */
export function isTemporalUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === GRPC_UNAVAILABLE || e.code === GRPC_DEADLINE_EXCEEDED) return true;
  }
  return false;
}
