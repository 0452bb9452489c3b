/**
 * An error and its causes, outermost first, at most five deep: drivers and SDKs wrap the error
 * that tells what happened (a SQLSTATE, a gRPC status), and a cycle of causes must end.
 */
export function* causeChain(err: unknown): Generator<Record<string, any>> {
  let e = err as Record<string, any> | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause) yield e;
}
