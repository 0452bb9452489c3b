import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadTrigger, setSecret, setWorkspacePlan } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { confineDnsToLoopback } from './helpers/loopbackDns';
import { waitFor } from './helpers/fixtures';
import { runTool } from './helpers/command';

/**
 * Property-based fuzzing of the live API against the committed OpenAPI document with
 * Schemathesis (PyPI `schemathesis`, pinned; the test setup installs it into a virtualenv under
 * ~/.cache/svc, or SCHEMATHESIS_PYTHON names a Python that has it): every phase (examples, coverage,
 * fuzzing, stateful through the document's links), every check (`--checks all`: no 5xx; status
 * codes, content types, headers and bodies as documented; invalid data refused, valid data
 * accepted; 401 without the key; 405 + Allow for undocumented methods; a created resource is
 * readable, a deleted one gone), a key with every scope, a bounded number of examples and a
 * fixed seed (SCHEMATHESIS_SEED overrides it). Then no secret may appear in any recorded response.
 *
 * Outbound traffic stays on this machine: OUTBOUND_ALLOW_CIDRS is 127.0.0.0/8 and name
 * resolution in this process answers for localhost only (helpers/loopbackDns.ts), so webhook
 * endpoints the fuzzer creates with generated host names never reach anything.
 */

// Set by test/setup/globalSetup.cjs (packages/devstack ensureSchemathesis).
const PYTHON = process.env.SCHEMATHESIS_PYTHON!;
const SEED = process.env.SCHEMATHESIS_SEED ?? '20261122';
const MAX_EXAMPLES = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '20';
const DOCUMENT = path.resolve(__dirname, '..', 'openapi', 'openapi.json');

/** Values that must never leave the service in an answer. */
const WORKSPACE_SECRET = 'fuzz-secret-6d1f0c2b9e8a4f7d';

let stack: TestStack;
let key: string;
let workDir: string;
let configFile: string;
/** Trigger and endpoint secrets of the fuzzed workspace: never in an answer either. */
const moreSecrets: string[] = [];
const fence = confineDnsToLoopback();

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'svc-schemathesis-'));
  stack = await startStack({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    // Fuzzing sends thousands of requests, many without a valid key, from one address.
    RATE_LIMIT_UNAUTHENTICATED_PER_MIN: '0',
    // `wait: true` holds a request until the run settles; keep the fuzzer's waits short.
    RUN_WAIT_TIMEOUT_MS: '2000',
  });
  const tenant = await stack.tenant({ plan: 'enterprise' });
  key = tenant.key;
  await setWorkspacePlan(stack.db.prisma, tenant.workspaceId, { plan: 'enterprise', rateLimitPerMin: 1_000_000, concurrency: 50 });
  await setSecret(stack.db.prisma, stack.box, { workspaceId: tenant.workspaceId, name: 'FUZZ_TOKEN', value: WORKSPACE_SECRET });
  // Workflows the stateful phase reaches through listWorkflows → getWorkflow → startRun → getRun /
  // cancelRun / decideReview. No input_schema: the document cannot know a workflow's own input
  // rules, so every object is a valid input here.
  await stack.apply(tenant.workspaceId, {
    name: 'Needs a review',
    slug: 'needs-review',
    steps: [
      { key: 'check', type: 'review', title: 'Check', assignees: ['ops@example.test'], data: 'input' },
      { key: 'after', type: 'transform', expression: "'approved ' & secrets.FUZZ_TOKEN" },
    ],
  });
  // A trigger the fuzzer can pass (its secret is given to it): webhook-started runs with generated bodies.
  const hooked = await stack.apply(tenant.workspaceId, {
    name: 'Hooked',
    slug: 'hooked',
    steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
    trigger: { secret: true, signature: false },
  });
  // Applied last, so it is the first of listWorkflows (newest first), which the stateful phase follows.
  await stack.apply(tenant.workspaceId, {
    name: 'Uses a secret',
    slug: 'uses-secret',
    steps: [{ key: 'shape', type: 'transform', expression: "{ 'token': secrets.FUZZ_TOKEN, 'echo': input }" }],
    trigger: { secret: true, signature: true },
  });
  const row = await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: hooked.id }, select: { triggerId: true } });
  const trigger = (await loadTrigger(stack.db.prisma, stack.box, row.triggerId))!;
  for (const w of await stack.db.prisma.workflow.findMany({ where: { workspaceId: tenant.workspaceId }, select: { triggerId: true } })) {
    const t = (await loadTrigger(stack.db.prisma, stack.box, w.triggerId))!;
    moreSecrets.push(...t.secrets, ...t.signingSecrets);
  }
  // A delivery in the log (to a closed loopback port: every attempt fails with no response), so
  // the delivery operations have something to find.
  const endpoint = await stack.api('POST', '/api/v1/webhook-endpoints', {
    key,
    body: { url: 'https://127.0.0.1:9/hook', event_types: ['run.succeeded'], description: 'seeded' },
  });
  expect(endpoint.status).toBe(201);
  moreSecrets.push(endpoint.body.secret);
  const wf = await stack.db.prisma.workflow.findFirstOrThrow({ where: { workspaceId: tenant.workspaceId, slug: 'uses-secret' } });
  const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { n: 1 }, wait: true } });
  expect(started.body.status).toBe('succeeded');
  const deliveries = await waitFor(
    () => stack.api('GET', `/api/v1/webhook-endpoints/${endpoint.body.id}/deliveries`, { key }),
    (r) => r.body.data?.length > 0,
  );
  const delivery = deliveries.body.data[0].id as string;

  const everyStatus = ['2xx', '3xx', '401', '403', '404', '409', '422', '429', '5xx'];
  const semantic422 = (operationId: string) =>
    `[[operations]]\ninclude-operation-id = "${operationId}"\n[operations.checks.positive_data_acceptance]\nexpected-statuses = ${JSON.stringify(everyStatus)}\n`;
  configFile = path.join(workDir, 'schemathesis.toml');
  writeFileSync(
    configFile,
    [
      `hooks = ${JSON.stringify(path.join(__dirname, 'helpers', 'schemathesis_hooks.py'))}`,
      // The 422s no JSON Schema (or no plain one) can express; helpers/schemathesis_hooks.py checks each is one of them.
      semantic422('startRun'),
      semantic422('createWebhookEndpoint'),
      semantic422('updateWebhookEndpoint'),
      // Ids no operation of the document hands out: the trigger (and its secret)…
      semantic422('fireTrigger') +
        `[operations.parameters]\n"path.trigger_id" = "${row.triggerId}"\n"header.x-svc-secret" = "${trigger.secrets[0]}"\n`,
      // …and an endpoint with a delivery in its log. The stateful phase reaches deliveries through
      // the document's links instead (pinned ids there would mix with the ids links hand out).
      `[[operations]]\ninclude-operation-id = "listWebhookDeliveries"\n[operations.parameters]\n"path.endpoint_id" = "${endpoint.body.id}"\n`,
      // Before the stateful phase (which deletes the endpoints it creates, through the links), DELETE
      // draws its ids instead of reusing ids seen in answers, so the endpoint above stays.
      `[[operations]]\ninclude-operation-id = "deleteWebhookEndpoint"\n` +
        ['examples', 'coverage', 'fuzzing'].map((phase) => `[operations.phases.${phase}.extra-data-sources]\nresponses = false\n`).join(''),
      ...['getWebhookDelivery', 'retryWebhookDelivery'].map(
        (id) =>
          `[[operations]]\ninclude-operation-id = "${id}"\n[operations.parameters]\n"path.endpoint_id" = "${endpoint.body.id}"\n"path.delivery_id" = "${delivery}"\n[operations.phases.stateful]\nenabled = false\n`,
      ),
    ].join('\n'),
  );
});

afterAll(async () => {
  await stack?.stop();
  fence.restore();
});

it('finds nothing: no 5xx, every answer as documented, no secret in any answer', async () => {
  const har = path.join(workDir, 'report.har');
  const junit = path.join(workDir, 'junit.xml');
  const started = Date.now();
  const { code, output } = await runTool(
    PYTHON,
    [
      '-m',
      'schemathesis.cli',
      '--config-file',
      configFile,
      'run',
      DOCUMENT,
      '--url',
      stack.url,
      '--header',
      `Authorization: Bearer ${key}`,
      '--checks',
      'all',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--max-examples',
      MAX_EXAMPLES,
      '--seed',
      SEED,
      // One worker: Hypothesis parses module sources to describe its filters, and CPython 3.11 keeps that
      // parse's recursion depth in interpreter-wide state, so two workers parsing at once can fail with
      // "AST constructor recursion depth mismatch".
      '--workers',
      '1',
      '--request-timeout',
      '30',
      '--generation-database',
      'none',
      '--report',
      'har,junit',
      '--report-har-path',
      har,
      '--report-junit-path',
      junit,
      '--output-truncate',
      'false',
      '--no-color',
    ],
    { cwd: workDir, env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' }, timeoutMs: 270_000 },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(path.join(workDir, 'output.txt'), output);
  const tail = output.split('\n').slice(-200).join('\n');
  if (code !== 0) {
    throw new Error(`schemathesis exited ${code} after ${seconds} s (seed ${SEED}; full output in ${workDir}/output.txt):\n${tail}`);
  }
  process.stderr.write(`[schemathesis] passed in ${seconds} s (seed ${SEED})\n${output.split('\n').slice(-25).join('\n')}\n`);

  // The recorded answers: a meaningful number of them, none carrying a secret.
  expect(existsSync(har)).toBe(true);
  const recorded = JSON.parse(readFileSync(har, 'utf8')) as {
    log: {
      entries: Array<{
        request: { url: string };
        response: { status: number; headers: { name: string; value: string }[]; content: { text?: string; encoding?: string } };
      }>;
    };
  };
  const entries = recorded.log.entries;
  expect(entries.length).toBeGreaterThan(500);
  const forbidden = [WORKSPACE_SECRET, key, stack.config.SVC_ENCRYPTION_KEY!.toString('hex'), ...moreSecrets];
  expect(moreSecrets.length).toBeGreaterThanOrEqual(7);
  let redacted = 0;
  for (const entry of entries) {
    const { text: raw = '', encoding } = entry.response.content;
    const text = (encoding === 'base64' ? Buffer.from(raw, 'base64').toString('utf8') : raw) + JSON.stringify(entry.response.headers);
    if (text.includes('[REDACTED]')) redacted++;
    for (const secret of forbidden) {
      if (text.includes(secret)) throw new Error(`a secret appeared in the answer to ${entry.request.url} (${entry.response.status})`);
    }
  }
  // The fuzzer did read runs that used the secret: it met the redaction, not the value.
  expect(redacted).toBeGreaterThan(0);
  expect(entries.some((e) => e.response.status >= 500)).toBe(false);

  // Tripwire: no endpoint the fuzzer created points at an IP literal outside loopback (host names
  // never resolved, see helpers/loopbackDns.ts).
  const endpoints = await stack.db.prisma.webhookEndpoint.findMany({ select: { url: true } });
  for (const { url } of endpoints) {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) expect({ url, loopback: host.startsWith('127.') || host === '::1' }).toEqual({ url, loopback: true });
  }
  process.stderr.write(`[schemathesis] ${entries.length} answers; host names refused by the DNS fence: ${fence.refused.size}\n`);
}, 300_000);
