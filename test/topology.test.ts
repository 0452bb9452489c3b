import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import {
  ensureCaddy,
  ensureTemporalCli,
  ensureTemporalServer,
  findFreePort,
  postgresEndpoint,
  spawnManaged,
  startAppProcess,
  startTemporalCluster,
} from '@svc/devstack';
import type { AppProcess, ManagedProcess, TemporalCluster } from '@svc/devstack';
import { createSecretBox } from '@svc/signing';
import { json, startEchoServer } from './helpers/echoServer';
import { waitFor } from './helpers/fixtures';
import { apiCall } from './helpers/http';
import type { HttpAnswer } from './helpers/http';
import { interpolate, readComposeFile, runComposeJob, serviceEnv } from './helpers/compose';
import type { ComposeService } from './helpers/compose';
import { ROOT } from './helpers/processes';
import { createScratchDatabase } from './helpers/scratchDatabase';
import { tenantFactory } from './helpers/tenants';

/**
 * svc as docker-compose.yml describes it, run natively from the file itself (no container engine
 * here): its schema, namespace and search-attribute jobs' own scripts against the real Temporal
 * server on PostgreSQL with its dynamic config; two gateways and two workers with their commands
 * and environment; Caddy with the file's Caddyfile. Only addresses are replaced by local ones.
 */

jest.setTimeout(600_000);
const log = (msg: string) => process.stderr.write(`[topology] ${msg}\n`);

const compose = readComposeFile();
const service = (name: string): ComposeService => compose.services[name];

let dataDir: string;
let temporal: TemporalCluster;
let temporalClient: Client;
let connection: Connection;
let scratch: { url: string; drop(): Promise<void> };
let db: DbHandle;
let caddy: ManagedProcess;
let notReady: Awaited<ReturnType<typeof startEchoServer>>;
let lbUrl: string;
const gateways: { app: AppProcess; url: string }[] = [];
const workers: AppProcess[] = [];
let tenants: ReturnType<typeof tenantFactory>;
const encryptionKey = randomBytes(32);

/** Settings only a test needs: outbound calls to this machine's receivers, fast webhook retries. */
const TEST_ONLY = {
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  OUTBOUND_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,600ms',
  LOG_LEVEL: 'warn',
};

/** A gateway or worker started with its Compose command and environment; `local` holds the addresses. */
async function startService(name: 'gateway' | 'worker', local: Record<string, string>): Promise<AppProcess> {
  const s = service(name);
  const command = s.command!;
  expect(command[0]).toBe('node');
  const env = { ...serviceEnv(s, { SVC_ENCRYPTION_KEY: encryptionKey.toString('hex'), BASE_URL: lbUrl }), ...TEST_ONLY, ...local };
  return startAppProcess({
    name,
    entry: path.join(ROOT, command[command.length - 1]),
    nodeFlags: command.slice(1, -1),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    cwd: ROOT,
  });
}

async function startGateway(): Promise<{ app: AppProcess; url: string }> {
  const port = await findFreePort();
  const metrics = await findFreePort(undefined, { avoid: [port] });
  const local = {
    DATABASE_URL: scratch.url,
    TEMPORAL_ADDRESS: temporal.address,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_ADDRESS: `127.0.0.1:${metrics}`,
  };
  return { app: await startService('gateway', local), url: `http://127.0.0.1:${port}` };
}

async function startWorker(): Promise<AppProcess> {
  const metrics = await findFreePort();
  return startService('worker', {
    DATABASE_URL: scratch.url,
    TEMPORAL_ADDRESS: temporal.address,
    WORKER_METRICS_ADDRESS: `127.0.0.1:${metrics}`,
  });
}

/** The Compose file's Caddyfile as Compose hands it to Caddy, listening on a local address. */
function localCaddyfile(port: number): string {
  const caddyfile = interpolate(compose.configs.caddyfile.content, {});
  expect(caddyfile).toMatch(/reverse_proxy \{\$SVC_GATEWAYS\} \{/);
  return caddyfile.replace(/^:8080 \{/m, `http://127.0.0.1:${port} {`);
}

beforeAll(async () => {
  const [build, caddyPath, cliPath] = await Promise.all([ensureTemporalServer(log), ensureCaddy(log), ensureTemporalCli(log)]);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-topology-'));
  // The jobs' scripts call `temporal-sql-tool` and `temporal` as the admin-tools image names them.
  const bin = path.join(dataDir, 'bin');
  mkdirSync(bin);
  symlinkSync(build.sqlTool, path.join(bin, 'temporal-sql-tool'));
  symlinkSync(cliPath, path.join(bin, 'temporal'));
  const PATH = `${bin}${path.delimiter}${process.env.PATH}`;

  const pg = postgresEndpoint(process.env.DATABASE_URL!);
  const sql = { SQL_HOST: pg.host, SQL_PORT: String(pg.port), SQL_USER: pg.user, SQL_PASSWORD: pg.password };
  await runComposeJob(service('temporal-schema'), { ...sql, SCHEMA_DIR: build.schemaDir, PATH });
  // Re-running it (every `up` does) changes nothing and succeeds.
  await runComposeJob(service('temporal-schema'), { ...sql, SCHEMA_DIR: build.schemaDir, PATH });

  const temporalEnv = service('temporal').environment!;
  temporal = await startTemporalCluster({
    build,
    dataDir,
    postgres: pg,
    databases: { main: temporalEnv.DBNAME, visibility: temporalEnv.VISIBILITY_DBNAME },
    port: await findFreePort(),
    dynamicConfig: compose.configs['temporal-dynamic-config'].content,
    log,
  });
  for (const job of ['temporal-namespace', 'temporal-search-attributes', 'temporal-namespace', 'temporal-search-attributes']) {
    await runComposeJob(service(job), { TEMPORAL_ADDRESS: temporal.address, PATH });
  }
  connection = await Connection.connect({ address: temporal.address });
  temporalClient = new Client({ connection, namespace: 'default' });

  scratch = await createScratchDatabase('topology');
  db = createDb(scratch.url, { max: 4 });
  // The Compose file's one-shot `migrate` ran in createScratchDatabase (the same runner).
  const lbPort = await findFreePort();
  lbUrl = `http://127.0.0.1:${lbPort}`;
  tenants = tenantFactory(db, createSecretBox(encryptionKey), () => lbUrl);
  gateways.push(await startGateway(), await startGateway());
  workers.push(await startWorker(), await startWorker());

  // A third upstream that is never ready: the load balancer's probes must keep every request from it.
  notReady = await startEchoServer((req, res) => json(res, 503, { status: req.url === '/readyz' ? 'starting' : 'served while not ready' }));
  const caddyfile = path.join(dataDir, 'Caddyfile');
  writeFileSync(caddyfile, localCaddyfile(lbPort));
  // Only the upstream list is local: the gateways' addresses where Compose names its replicas.
  const upstreams = [...gateways.map((g) => g.url), notReady.url].map((u) => u.replace('http://', '')).join(' ');
  caddy = spawnManaged(caddyPath, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    name: 'caddy',
    env: { ...process.env, ...serviceEnv(service('lb'), { SVC_GATEWAYS: upstreams }) },
  });
  // Its first probe has marked the never-ready upstream down before any test sends a request.
  await waitFor(
    async () => notReady.requests.filter((r) => r.url === '/readyz').length,
    (n) => n >= 2,
    30_000,
    100,
  );
  await waitFor(
    () =>
      fetch(`${lbUrl}/healthz`).then(
        (r) => r.status,
        () => 0,
      ),
    (s) => s === 200,
    30_000,
    200,
  );
});

afterAll(async () => {
  await caddy?.stop(5_000);
  await notReady?.close();
  await Promise.all([...gateways.map((g) => g.app.stop(5_000)), ...workers.map((w) => w.stop(20_000))]);
  await connection?.close();
  await db?.close();
  await temporal?.stop();
  await scratch?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const api = (key: string, method: string, p: string, body?: unknown, headers?: Record<string, string>, base = lbUrl) =>
  apiCall(base, method, p, { key, body, headers });

it('the namespace has the retention the Compose job sets, and every search attribute', async () => {
  const retention = service('temporal-namespace').environment!.TEMPORAL_RETENTION;
  expect(retention).toMatch(/^\d+h$/);
  const ns = await connection.workflowService.describeNamespace({ namespace: 'default' });
  expect(Number(ns.config!.workflowExecutionRetentionTtl!.seconds)).toBe(Number.parseInt(retention, 10) * 3600);
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
  expect(Object.keys(customAttributes ?? {})).toEqual(
    expect.arrayContaining(['SvcRunId', 'SvcWorkspaceId', 'SvcWorkflowId', 'SvcRunStatus']),
  );
});

it('starts with wait through the load balancer, and replays one key across both gateways', async () => {
  const { key, workspaceId } = await tenants.tenant();
  const wf = await tenants.apply(workspaceId, {
    name: 'Shape',
    slug: 'shape',
    steps: [{ key: 's', type: 'transform', expression: 'input.n * 2' }],
  });
  const waited = await api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: { n: 21 }, wait: true });
  expect(waited.status).toBe(201);
  expect(waited.body).toMatchObject({ status: 'succeeded', output: 42 });

  // A key of 255 characters: its run's workflow id is cut to the 255 the server's PostgreSQL schema stores.
  const longKey = 'k'.repeat(255);
  const body = { input: { n: 1 }, wait: true };
  const first = await api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, body, { 'idempotency-key': longKey }, gateways[0].url);
  expect(first.status).toBe(201);
  expect(first.body.status).toBe('succeeded');
  const again = await api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, body, { 'idempotency-key': longKey }, gateways[1].url);
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.id).toBe(first.body.id);
  const row = await db.prisma.run.findUniqueOrThrow({ where: { id: first.body.id as string } });
  expect(row.temporalWorkflowId).toHaveLength(255);
  expect((await temporalClient.workflow.getHandle(row.temporalWorkflowId).describe()).status.name).toBe('COMPLETED');
});

it('a review is decided and a run is cancelled through the API', async () => {
  const { key, workspaceId } = await tenants.tenant();
  const wf = await tenants.apply(workspaceId, {
    name: 'Reviewed',
    slug: 'reviewed',
    steps: [{ key: 'approve', type: 'review', title: 'Approve', assignees: ['ops@example.test'] }],
  });
  const start = () => api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: {} });
  const reviewed = (await start()).body.id as string;
  const cancelled = (await start()).body.id as string;
  const waiting = (id: string) =>
    waitFor(
      () => api(key, 'GET', `/api/v1/runs/${id}`),
      (r) => r.body.status === 'waiting_for_review',
    );
  await Promise.all([waiting(reviewed), waiting(cancelled)]);
  expect((await api(key, 'POST', `/api/v1/runs/${reviewed}/review`, { decision: 'approve', decided_by: 'ana@example.test' })).status).toBe(
    200,
  );
  expect((await api(key, 'POST', `/api/v1/runs/${cancelled}/cancel`, {})).status).toBe(200);
  const settled = (id: string, status: string) =>
    waitFor(
      () => api(key, 'GET', `/api/v1/runs/${id}`),
      (r) => r.body.status === status,
    );
  await Promise.all([settled(reviewed, 'succeeded'), settled(cancelled, 'cancelled')]);
});

it("an operator's cancel and terminate in Temporal reach svc", async () => {
  const { key, workspaceId } = await tenants.tenant();
  const wf = await tenants.apply(workspaceId, { name: 'Long', slug: 'long', steps: [{ key: 'pause', type: 'delay', duration: '10m' }] });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) ids.push((await api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: {} })).body.id as string);
  await Promise.all(
    ids.map((id) =>
      waitFor(
        () => api(key, 'GET', `/api/v1/runs/${id}`),
        (r) => r.body.status === 'running',
      ),
    ),
  );
  const handle = async (id: string) =>
    temporalClient.workflow.getHandle((await db.prisma.run.findUniqueOrThrow({ where: { id } })).temporalWorkflowId);
  await (await handle(ids[0])).cancel();
  await (await handle(ids[1])).terminate('operator says stop');
  const cancelled = await waitFor(
    () => api(key, 'GET', `/api/v1/runs/${ids[0]}`),
    (r) => r.body.status === 'cancelled',
    10_000,
  );
  expect(cancelled.body.status).toBe('cancelled');
  const terminated = await waitFor(
    () => api(key, 'GET', `/api/v1/runs/${ids[1]}`),
    (r) => r.body.status === 'failed',
    90_000,
    500,
  );
  expect(terminated.body.error).toMatchObject({ code: 'terminated', message: 'operator says stop' });
});

it("the load balancer probes every gateway's /readyz and sends nothing to one that is not ready", async () => {
  const { key } = await tenants.tenant();
  const probesBefore = notReady.requests.length;
  const answers = await Promise.all(Array.from({ length: 30 }, () => api(key, 'GET', '/api/v1/workflows')));
  expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
  // The never-ready upstream saw probes only, and is still probed.
  expect(notReady.requests.every((r) => r.method === 'GET' && r.url === '/readyz')).toBe(true);
  await waitFor(
    async () => notReady.requests.length,
    (n) => n > probesBefore,
    10_000,
    100,
  );
});

it('kill -9 of a gateway and a worker mid-load: every run finishes once, every event is delivered, a failed delivery is retried', async () => {
  let failedOnce = false;
  const received = await startEchoServer((req, res) => {
    // The first delivery fails: it is retried, and delivered once.
    if (!failedOnce) {
      failedOnce = true;
      return json(res, 500, { error: 'try again' });
    }
    json(res, 200, { ok: true });
  });
  try {
    const { key, workspaceId } = await tenants.tenant({ limits: { rateLimitPerMin: 100_000, concurrency: 500 } });
    const endpoint = await api(key, 'POST', '/api/v1/webhook-endpoints', { url: received.url, event_types: ['run.succeeded'] });
    expect(endpoint.status).toBe(201);
    const wf = await tenants.apply(workspaceId, {
      name: 'Busy',
      slug: 'busy',
      steps: [
        { key: 'pause', type: 'delay', duration: '1s' },
        { key: 'shape', type: 'transform', expression: 'input.i' },
      ],
    });
    const N = 60;
    /** Through the load balancer; a request cut by the kill is sent again with the same key. */
    const start = async (i: number): Promise<HttpAnswer> => {
      for (let attempt = 0; ; attempt++) {
        const r = await api(key, 'POST', `/api/v1/workflows/${wf.id}/runs`, { input: { i } }, { 'idempotency-key': `load-${i}` }).catch(
          (err: Error) => ({ status: 0, body: err.message, headers: new Headers() }) as HttpAnswer,
        );
        if (r.status === 200 || r.status === 201) return r;
        if (attempt > 20) throw new Error(`start ${i}: ${r.status} ${JSON.stringify(r.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const answers: Promise<HttpAnswer>[] = [];
    for (let i = 0; i < N; i++) {
      answers.push(start(i));
      if (i === N / 3) {
        gateways[0].app.process.child.kill('SIGKILL');
        workers[0].process.child.kill('SIGKILL');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ids = (await Promise.all(answers)).map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(N);
    await waitFor(
      () => db.prisma.run.count({ where: { workflowId: wf.id, status: 'succeeded' } }),
      (n) => n === N,
      180_000,
      500,
    );
    // One run per key, in svc and in Temporal.
    expect(await db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(N);
    expect((await temporalClient.workflow.count(`SvcWorkflowId = "${wf.id}"`)).count).toBe(N);
    const events = await db.prisma.event.findMany({ where: { workspaceId, type: 'run.succeeded' } });
    expect(events).toHaveLength(N);
    // Every event reaches the receiver; the one that failed first was tried again.
    const delivered = await waitFor(
      async () => new Set(received.requests.filter((_r, i) => i > 0).map((r) => JSON.parse(r.body).id as string)),
      (s) => s.size === N,
      120_000,
      500,
    );
    expect([...delivered].sort()).toEqual(events.map((e) => e.id).sort());
    const failed = await db.prisma.webhookAttempt.findMany({
      where: { responseStatus: 500, delivery: { workspaceId } },
      include: { delivery: true },
    });
    expect(failed).toHaveLength(1);
    expect(failed[0].delivery.attemptCount).toBeGreaterThan(1);
    await waitFor(
      () => db.prisma.webhookDelivery.count({ where: { workspaceId, status: { not: 'succeeded' } } }),
      (n) => n === 0,
      30_000,
      500,
    );
  } finally {
    await received.close();
  }
});
