import { findFreePort, SEARCH_ATTRIBUTES, startTemporalDevServer } from '@svc/devstack';
import type { TemporalDevServer } from '@svc/devstack';

/** A Temporal dev server of a test's own (in memory, svc's search attributes), for what the shared one must not see. */
export async function dedicatedTemporal(dynamicConfig?: Record<string, string | number | boolean>): Promise<TemporalDevServer> {
  return startTemporalDevServer({
    cliPath: process.env.TEMPORAL_CLI_PATH!,
    port: await findFreePort(),
    headless: true,
    searchAttributes: SEARCH_ATTRIBUTES,
    ...(dynamicConfig ? { dynamicConfig } : {}),
  });
}
