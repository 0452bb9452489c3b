export {
  ensureTemporalCli,
  cachedTemporalCliPath,
  temporalCliCacheDir,
  temporalCliBuildCommand,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_CLI_MODULE,
} from './temporalCli';
export {
  ensureTemporalServer,
  setupTemporalSchemas,
  startTemporalCluster,
  registerTemporalNamespace,
  postgresEndpoint,
  sqlToolEnv,
  dynamicConfigYaml,
  clientTls,
  SVC_TEMPORAL_DYNAMIC_CONFIG,
  TEMPORAL_SERVER_VERSION,
} from './temporalCluster';
export type { TemporalServerBuild, TemporalCluster, TemporalClusterOptions, TemporalServerTls, PostgresEndpoint } from './temporalCluster';
export { ensureCaddy, CADDY_VERSION } from './caddy';
export { ensureGoTool, goModuleDir } from './goTool';
export type { GoTool } from './goTool';
export {
  ensureChromium,
  ensureOpenApiPythonClient,
  ensureSchemathesis,
  ensureStandardWebhooksPython,
  schemathesisVenvDir,
  OPENAPI_PYTHON_CLIENT_VERSION,
  SCHEMATHESIS_VERSION,
  STANDARDWEBHOOKS_VERSION,
} from './testTools';
export { ensureOpenApiGenerator, svcMavenRepo, MAVEN_DEPENDENCY_PLUGIN, OPENAPI_GENERATOR_VERSION } from './openapiGenerator';
export { svcCacheDir } from './cacheDir';
export { findFreePort, isPortFree } from './ports';
export type { FindFreePortOptions } from './ports';
export { startEmbeddedPostgres, resolvePostgresBinaries } from './postgres';
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from './postgres';
export { startTemporalDevServer, SEARCH_ATTRIBUTES } from './temporalServer';
export type { TemporalDevServer, TemporalDevServerOptions, SearchAttributeType } from './temporalServer';
export { writeStackFile, readStackFile, removeStackFile, stackFilePath, isStackRunning, STACK_FILE_NAME } from './stackFile';
export type { StackInfo } from './stackFile';
export { loadOrCreateDevEncryptionKey, ENCRYPTION_KEY_FILE_NAME } from './encryptionKey';
export { spawnManaged, isProcessAlive, supportsParentDeathSignal, describeExit } from './processes';
export type { ManagedProcess, ManagedProcessOptions, ExitInfo } from './processes';
export { startAppProcess } from './appProcess';
export type { AppProcess, StartAppProcessOptions } from './appProcess';
export { forEachLine, silentLog } from './log';
export type { Log } from './log';

/** Preferred local ports of the embedded stack; a taken one is replaced by a free one. */
export const DEFAULT_PORTS = {
  api: 8080,
  postgres: 5433,
  temporal: 7233,
  temporalUi: 8233,
} as const;
