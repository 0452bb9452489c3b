import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { svcCacheDir } from './cacheDir';
import { withFileLock } from './fileLock';
import { silentLog, type Log } from './log';
import { runCommand } from './runCommand';

/**
 * OpenAPI Generator (the CLI jar from Maven Central, pinned), which the tests use to prove that
 * the Go, Java and TypeScript clients generated from the API's OpenAPI document compile. Fetched
 * once with Maven into the svc cache; run with the machine's Java.
 */

export const OPENAPI_GENERATOR_VERSION = '7.25.0';
/** The Maven plugin that fetches artifacts and lists a project's class path, pinned (no version lookups). */
export const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** `${XDG_CACHE_HOME:-~/.cache}/svc/maven`: the Maven repository of svc's Java tooling and of the clients it compiles. */
export function svcMavenRepo(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(svcCacheDir(env), 'maven');
}

/** The generator jar: `OPENAPI_GENERATOR_JAR`, else `${cache}/openapi-generator/<version>/…jar`, fetched on first use. */
export async function ensureOpenApiGenerator(log: Log = silentLog, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.OPENAPI_GENERATOR_JAR) {
    if (existsSync(env.OPENAPI_GENERATOR_JAR)) return env.OPENAPI_GENERATOR_JAR;
    throw new Error(`OPENAPI_GENERATOR_JAR is set to "${env.OPENAPI_GENERATOR_JAR}", but there is no file there.`);
  }
  const dir = path.join(svcCacheDir(env), 'openapi-generator', OPENAPI_GENERATOR_VERSION);
  const jar = path.join(dir, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);
  if (existsSync(jar)) return jar;
  mkdirSync(dir, { recursive: true });
  return withFileLock(`${dir}.lock`, 'the OpenAPI Generator download', log, INSTALL_TIMEOUT_MS, async () => {
    if (existsSync(jar)) return jar;
    const started = Date.now();
    log(`Fetching OpenAPI Generator ${OPENAPI_GENERATOR_VERSION} from Maven Central into ${dir} (once)`);
    // Into a scratch folder first, so a half-written jar is never taken for a finished one.
    const scratch = mkdtempSync(path.join(dir, '.fetch-'));
    try {
      await runCommand(
        'mvn',
        [
          '-q',
          '-B',
          `-Dmaven.repo.local=${svcMavenRepo(env)}`,
          `${MAVEN_DEPENDENCY_PLUGIN}:copy`,
          `-Dartifact=org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`,
          `-DoutputDirectory=${scratch}`,
        ],
        env,
      );
      renameSync(path.join(scratch, path.basename(jar)), jar);
    } catch (err) {
      throw new Error(
        `Fetching OpenAPI Generator failed (needs Maven and Java on PATH, e.g. apt-get install -y maven default-jdk-headless, ` +
          `and Maven Central): ${(err as Error).message}\nOr set OPENAPI_GENERATOR_JAR to an openapi-generator-cli jar.`,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    log(`Fetched OpenAPI Generator in ${Math.round((Date.now() - started) / 1000)}s`);
    return jar;
  });
}
