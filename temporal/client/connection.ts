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
 * `client.withAbortSignal`, with the client's call context switched off again once no such call
 * is open. The context is an AsyncLocalStorage, and on Node 20 an enabled one puts promise hooks
 * on every promise in the process (~4% of the gateway's CPU per `GET /runs/{id}`, measured), for
 * a context only `wait: true` uses. Its `run` (inside withAbortSignal) turns it on again. A scope
 * opened on the same connection other than through this one would lose its context when this
 * one turns it off: svc opens none (the bench's baselines do, in a process of their own).
 */
export function withAbortSignal<T>(client: Client, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return inCallScope(client, () => client.withAbortSignal(signal, fn));
}

/**
 * `client.withDeadline`, under the same accounting as withAbortSignal. A NativeConnection (a
 * worker's) honours a deadline but not an abort signal.
 */
export function withDeadline<T>(client: Client, deadline: number, fn: () => Promise<T>): Promise<T> {
  return inCallScope(client, () => client.withDeadline(deadline, fn));
}

/** Runs `open` (a call scope of the client) and switches the call context off when it was the last one open. */
async function inCallScope<T>(client: Client, open: () => Promise<T>): Promise<T> {
  const storage = client.connection instanceof Connection ? client.connection.callContextStorage : undefined;
  if (storage) openScopes.set(storage, (openScopes.get(storage) ?? 0) + 1);
  try {
    return await open();
  } finally {
    if (storage) {
      const stillOpen = openScopes.get(storage)! - 1;
      openScopes.set(storage, stillOpen);
      if (stillOpen === 0) storage.disable();
    }
  }
}
