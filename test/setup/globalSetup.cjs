// Jest globalSetup for the `integration` project: real infrastructure, fresh for every run.
//
// - finds or builds the Temporal CLI (a first build on a new machine takes ~5 minutes; the
//   binary is then cached in ~/.cache/svc/temporal-cli/),
// - finds or installs Debian's Chromium (apt, when running as root) for the browser tests,
//   Schemathesis (pinned, in a virtualenv under ~/.cache/svc/schemathesis/) for the API fuzzer,
//   the Python standardwebhooks library (pinned, ~/.cache/svc/standardwebhooks/) for receivers,
//   openapi-python-client (pinned, ~/.cache/svc/openapi-python-client/) and the OpenAPI Generator
//   jar (pinned, ~/.cache/svc/openapi-generator/, fetched with Maven) for the generated clients,
// - starts a throw-away embedded PostgreSQL in a new temp dir and a Temporal dev server
//   (in memory, no UI) with the svc search attributes, both on free ports,
// - applies the migrations,
// - exports DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SVC_ENCRYPTION_KEY,
//   TEMPORAL_CLI_PATH, CHROMIUM_PATH, SCHEMATHESIS_PYTHON, STANDARDWEBHOOKS_PYTHON,
//   OPENAPI_PYTHON_CLIENT_PYTHON, OPENAPI_GENERATOR_JAR, SVC_TEST_DATA_DIR and WORKER_METRICS_ADDRESS
//   (any free port) to the tests through process.env.
//
// It loads the BUILT packages (packages/devstack/dist, packages/db/dist): `npm test` builds first.
// globalTeardown.cjs stops both servers and deletes the temp dir.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

function requireBuilt(pkg) {
  const dir = path.join(root, 'packages', pkg, 'dist');
  if (!fs.existsSync(path.join(dir, 'index.js'))) {
    throw new Error(`${path.relative(root, dir)} is not built: run \`npm run build\` (npm test does it) before the integration tests`);
  }
  return require(dir);
}

const log = (msg) => process.stderr.write(`[test setup] ${msg}\n`);

module.exports = async function globalSetup() {
  const devstack = requireBuilt('devstack');
  const { migrate } = requireBuilt('db');
  const started = Date.now();

  // One-time installs, side by side (each is cached, and locked against concurrent runs).
  // The real Temporal server and Caddy too (test/topology.test.ts): a first build from an empty
  // cache takes minutes, better spent here, beside the CLI's, than inside one test file's time.
  const [cliPath, chromiumPath, schemathesisPython, standardWebhooksPython, openApiPythonClient, openApiGeneratorJar] = await Promise.all([
    devstack.ensureTemporalCli(log),
    devstack.ensureChromium(log),
    devstack.ensureSchemathesis(log),
    devstack.ensureStandardWebhooksPython(log),
    devstack.ensureOpenApiPythonClient(log),
    devstack.ensureOpenApiGenerator(log),
    devstack.ensureTemporalServer(log),
    devstack.ensureCaddy(log),
  ]);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  fs.chmodSync(dataDir, 0o711); // traversable for the `postgres` user PostgreSQL runs as under root
  const state = { dataDir, postgres: null, temporal: null };
  globalThis.__SVC_TEST_STACK__ = state;
  try {
    const pgPort = await devstack.findFreePort();
    const temporalPort = await devstack.findFreePort(undefined, { avoid: [pgPort] });
    const namespace = 'default';
    [state.postgres, state.temporal] = await Promise.all([
      devstack.startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: pgPort, durable: false, log }),
      devstack.startTemporalDevServer({
        cliPath,
        port: temporalPort,
        headless: true,
        namespace,
        searchAttributes: devstack.SEARCH_ATTRIBUTES,
        log,
      }),
    ]);
    await migrate(state.postgres.databaseUrl);

    Object.assign(process.env, {
      DATABASE_URL: state.postgres.databaseUrl,
      TEMPORAL_ADDRESS: state.temporal.address,
      TEMPORAL_NAMESPACE: namespace,
      SVC_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      TEMPORAL_CLI_PATH: cliPath,
      CHROMIUM_PATH: chromiumPath,
      SCHEMATHESIS_PYTHON: schemathesisPython,
      STANDARDWEBHOOKS_PYTHON: standardWebhooksPython,
      OPENAPI_PYTHON_CLIENT_PYTHON: openApiPythonClient,
      OPENAPI_GENERATOR_JAR: openApiGeneratorJar,
      SVC_TEST_DATA_DIR: dataDir,
      // Each worker process a test spawns serves its metrics on a port of its own (any free one).
      WORKER_METRICS_ADDRESS: '127.0.0.1:0',
    });
    log(`PostgreSQL on 127.0.0.1:${pgPort}, Temporal on ${state.temporal.address} (ready in ${Date.now() - started} ms)`);
  } catch (err) {
    // Jest does not run globalTeardown when globalSetup fails: clean up here.
    await require('./globalTeardown.cjs')().catch(() => undefined);
    throw err;
  }
};
