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
  return { client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), connection };
}
