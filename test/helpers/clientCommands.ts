import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MAVEN_DEPENDENCY_PLUGIN, OPENAPI_GENERATOR_VERSION } from '@svc/devstack';

/**
 * The commands docs/api.md gives integrators to generate and compile clients, exactly as the
 * tests run them: from a folder holding `openapi.json` and `openapi-3.0.json`, with only the
 * program replaced by the pinned one the test setup installed. docs/api.md must show each line.
 */

export const GENERATOR_JAR = `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`;

const openapiGenerator = (...args: string[]) => ['java', '-jar', GENERATOR_JAR, 'generate', '-i', 'openapi-3.0.json', ...args];

export const GENERATE = {
  python: ['openapi-python-client', 'generate', '--path', 'openapi.json', '--output-path', 'svc_client', '--meta', 'none'],
  go: openapiGenerator(
    '-g',
    'go',
    '-o',
    'svcclient',
    '--package-name',
    'svcclient',
    '--git-host',
    'example.com',
    '--git-user-id',
    'acme',
    '--git-repo-id',
    'svcclient',
  ),
  java: openapiGenerator(
    '-g',
    'java',
    '--library',
    'native',
    '-o',
    'svc-java',
    '--api-package',
    'com.example.svc.api',
    '--model-package',
    'com.example.svc.model',
    '--invoker-package',
    'com.example.svc',
    '--group-id',
    'com.example',
    '--artifact-id',
    'svc-client',
  ),
  typescript: openapiGenerator('-g', 'typescript-fetch', '-o', 'svc-ts'),
} as const;

/** Where each command writes its client. */
export const OUTPUT = { python: 'svc_client', go: 'svcclient', java: 'svc-java', typescript: 'svc-ts' } as const;

/** How the tests compile each generated client, from inside its folder. */
export const COMPILE = {
  go: ['go', 'build', './...'],
  javaClasspath: ['mvn', '-q', '-B', `${MAVEN_DEPENDENCY_PLUGIN}:build-classpath`, '-Dmdep.outputFile=classpath.txt'],
  typescript: ['tsc', '--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--module', 'commonjs', 'index.ts'],
} as const;

/** The commands that docs/api.md does not show word for word (none, when the page is right). */
export function commandsMissingFromDocs(commands: ReadonlyArray<readonly string[]>): string[] {
  const page = readFileSync(path.resolve(__dirname, '../../docs/api.md'), 'utf8');
  return commands.map((argv) => argv.join(' ')).filter((line) => !page.includes(line));
}
