import { Client, Connection, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '@svc/config';
import { svcGrpcRetryOptions } from './updateLimit';

export type TemporalClientConfig = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TLS' | 'TEMPORAL_API_KEY'>;

/** One client per process: the same options for a dev server, a cluster or Temporal Cloud. */
export async function connectTemporalClient(config: TemporalClientConfig): Promise<{ client: Client; connection: Connection }> {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  const connection = await Connection.connect({
    address: config.TEMPORAL_ADDRESS,
    tls: config.TEMPORAL_TLS || undefined,
    apiKey: config.TEMPORAL_API_KEY,
    interceptors: [makeGrpcRetryInterceptor(svcGrpcRetryOptions())],
  });
  // connect's readiness check ran under a deadline, which left the call context on: off until a wait needs it.
  connection.callContextStorage.disable();
  return { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), connection };
}

const openScopes = new WeakMap<Connection['callContextStorage'], number>();

/**
 * `client.withAbortSignal`, with the call context (an AsyncLocalStorage, whose promise hooks cost
 * CPU on every promise while enabled) switched off again once no call needs it; svc opens call
 * scopes only through these helpers, so none loses its context when one turns it off.
 */
export function withAbortSignal<T>(client: Client, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return withCallContext(client, () => client.withAbortSignal(signal, fn));
}

/** The longest a request's own Temporal call (a start, a describe, a cancel, a decision) may take: past it, 503. */
export const TEMPORAL_CALL_DEADLINE_MS = 10_000;

/**
 * Runs `fn` (Temporal calls) under a deadline: past it a call fails with gRPC DEADLINE_EXCEEDED
 * (isTemporalUnavailable). A worker's NativeConnection honours a deadline but not an abort signal.
 */
export function withDeadline<T>(client: Client, fn: () => Promise<T>, ms = TEMPORAL_CALL_DEADLINE_MS): Promise<T> {
  return withCallContext(client, () => client.withDeadline(Date.now() + ms, fn));
}

/** Runs `call` with the connection's call context switched on, and off again once no such call is open. */
async function withCallContext<T>(client: Client, call: () => Promise<T>): Promise<T> {
  const storage = client.connection instanceof Connection ? client.connection.callContextStorage : undefined;
  if (storage) openScopes.set(storage, (openScopes.get(storage) ?? 0) + 1);
  try {
    return await call();
  } finally {
    if (storage) {
      const open = openScopes.get(storage)! - 1;
      openScopes.set(storage, open);
      if (open === 0) storage.disable();
    }
  }
}
