import { copyFileSync, rmSync, cpSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { svcMavenRepo } from '@svc/devstack';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { greet } from './helpers/fixtures';
import { runTool } from './helpers/command';
import type { ToolResult } from './helpers/command';
import { COMPILE, commandsMissingFromDocs, GENERATE, GENERATOR_JAR, OUTPUT } from './helpers/clientCommands';

/**
 * The Go, Java and TypeScript clients integrators generate from the committed OpenAPI 3.0
 * rendering with OpenAPI Generator (the CLI jar from Maven Central, pinned; the test setup fetches
 * it into ~/.cache/svc): the generator finds nothing to report in the document; the commands of
 * docs/api.md generate every operation in each language; each client compiles (go build, javac
 * over the Maven class path, tsc); and the Go example of the docs runs against a live stack.
 */

// Set by test/setup/globalSetup.cjs (packages/devstack ensureOpenApiGenerator).
const JAR = process.env.OPENAPI_GENERATOR_JAR!;
const ROOT = path.resolve(__dirname, '..');
const committed = JSON.parse(readFileSync(path.join(ROOT, 'openapi/openapi-3.0.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string }>>;
};
const operationIds = Object.values(committed.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
/** Maven resolves into the svc cache (where the setup put the generator), never ~/.m2. */
const mavenEnv = { ...process.env, MAVEN_OPTS: `${process.env.MAVEN_OPTS ?? ''} -Dmaven.repo.local=${svcMavenRepo()}`.trim() };

let stack: TestStack;
let workDir: string;

/** Runs a docs/api.md command from the work folder, the pinned jar in place of its file name. */
function generate(argv: readonly string[]): Promise<ToolResult> {
  const [, ...args] = argv.map((a) => (a === GENERATOR_JAR ? JAR : a));
  return runTool('java', args, { cwd: workDir, timeoutMs: 180_000 });
}

function sourcesOf(dir: string, ext: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext) && statSync(path.join(dir, f)).isFile())
    .map((f) => path.join(dir, f));
}

const explain = (what: string, r: ToolResult) => `${what} exited ${r.code}:\n${r.output.split('\n').slice(-60).join('\n')}`;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'svc-generated-clients-'));
  copyFileSync(path.join(ROOT, 'openapi/openapi-3.0.json'), path.join(workDir, 'openapi-3.0.json'));
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it('has nothing for OpenAPI Generator to report in the 3.0 document', async () => {
  const validated = await runTool('java', ['-jar', JAR, 'validate', '-i', 'openapi-3.0.json', '--recommend'], {
    cwd: workDir,
    timeoutMs: 120_000,
  });
  expect({ code: validated.code, output: validated.output.trim().split('\n').slice(1) }).toEqual({
    code: 0,
    output: ['No validation issues detected.'],
  });
}, 150_000);

it('generates Go, Java and TypeScript clients with the commands of docs/api.md, every operation in each, and they compile', async () => {
  const docs = [GENERATE.go, GENERATE.java, GENERATE.typescript];
  expect(commandsMissingFromDocs(docs)).toEqual([]);
  // One generator run per language, side by side.
  const generated = await Promise.all(docs.map(generate));
  generated.forEach((r, i) => expect({ command: docs[i].join(' '), code: r.code }).toEqual({ command: docs[i].join(' '), code: 0 }));

  const go = path.join(workDir, OUTPUT.go);
  const java = path.join(workDir, OUTPUT.java);
  const ts = path.join(workDir, OUTPUT.typescript);
  const sources = {
    go: sourcesOf(go, '.go')
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n'),
    java: sourcesOf(path.join(java, 'src/main/java'), '.java')
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n'),
    ts: sourcesOf(path.join(ts, 'apis'), '.ts')
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n'),
  };
  expect(operationIds.length).toBeGreaterThanOrEqual(19);
  for (const id of operationIds) {
    const Id = id[0].toUpperCase() + id.slice(1);
    expect({ id, go: sources.go.includes(`) ${Id}(ctx context.Context`) }).toEqual({ id, go: true });
    expect({ id, java: new RegExp(`public [\\w<>, ]+ ${id}\\(`).test(sources.java) }).toEqual({ id, java: true });
    expect({ id, ts: sources.ts.includes(`async ${id}(`) }).toEqual({ id, ts: true });
  }

  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const [goBuild, javaBuild, tsBuild] = await Promise.all([
    runTool(COMPILE.go[0], COMPILE.go.slice(1), { cwd: go, timeoutMs: 240_000 }),
    (async () => {
      const classpath = await runTool(COMPILE.javaClasspath[0], COMPILE.javaClasspath.slice(1), {
        cwd: java,
        env: mavenEnv,
        timeoutMs: 240_000,
      });
      if (classpath.code !== 0) return classpath;
      const cp = readFileSync(path.join(java, 'classpath.txt'), 'utf8').trim();
      expect(cp).toContain('jackson-databind');
      return runTool('javac', ['-d', 'classes', '-cp', cp, ...sourcesOf(path.join(java, 'src/main/java'), '.java')], {
        cwd: java,
        timeoutMs: 240_000,
      });
    })(),
    runTool(process.execPath, [tsc, ...COMPILE.typescript.slice(1)], { cwd: ts, timeoutMs: 240_000 }),
  ]);
  expect(commandsMissingFromDocs([COMPILE.go, COMPILE.javaClasspath, COMPILE.typescript])).toEqual([]);
  if (goBuild.code !== 0) throw new Error(explain('go build', goBuild));
  if (javaBuild.code !== 0) throw new Error(explain('the Java build', javaBuild));
  if (tsBuild.code !== 0) throw new Error(explain('tsc', tsBuild));
  // Compiled for real: class files for every model and API.
  expect(sourcesOf(path.join(java, 'classes'), '.class').some((f) => f.endsWith(`${path.sep}RunsApi.class`))).toBe(true);
}, 600_000);

it('runs the Go example of the docs against a live stack: a run started with wait, settled', async () => {
  const { key, workspaceId } = await stack.tenant();
  const workflow = await stack.apply(workspaceId, greet);
  const example = path.join(workDir, 'example-go');
  cpSync(path.join(ROOT, 'docs/examples/start-run/go'), example, { recursive: true });
  cpSync(path.join(workDir, OUTPUT.go), path.join(example, 'svcclient'), { recursive: true });
  const ran = await runTool('go', ['run', '.'], {
    cwd: example,
    env: { ...process.env, SVC_BASE_URL: stack.url, SVC_API_KEY: key, SVC_WORKFLOW_ID: workflow.id },
    timeoutMs: 240_000,
  });
  expect({ code: ran.code, output: ran.output.trim() }).toEqual({ code: 0, output: 'succeeded {"greeting":"hello Ada"}' });
  const run = await stack.db.prisma.run.findFirstOrThrow({ where: { workspaceId, idempotencyKey: 'greet-ada-1' } });
  expect(run.status).toBe('succeeded');
}, 300_000);
