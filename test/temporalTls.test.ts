import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import {
  ensureTemporalServer,
  findFreePort,
  postgresEndpoint,
  registerTemporalNamespace,
  SEARCH_ATTRIBUTES,
  setupTemporalSchemas,
  startTemporalCluster,
} from '@svc/devstack';
import type { TemporalCluster, TemporalServerTls } from '@svc/devstack';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { createSecretBox } from '@svc/signing';
import { waitFor } from './helpers/fixtures';
import { svcCli } from './helpers/cli';
import { apiCall } from './helpers/http';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';
import { tenantFactory } from './helpers/tenants';

/**
 * Mutual TLS to Temporal: the real Temporal server with TLS on its frontend, requiring a client
 * certificate signed by a CA made here; the gateway, the worker and the CLI connect with
 * TEMPORAL_TLS_CERT_PATH, _KEY_PATH, _CA_PATH and _SERVER_NAME. A client without a certificate is refused.
 */

jest.setTimeout(300_000);
const log = (msg: string) => process.stderr.write(`[temporal tls] ${msg}\n`);

let dir: string;
let tls: TemporalServerTls;
let temporal: TemporalCluster;
let db: DbHandle;
const apps: Spawned[] = [];
let env: Record<string, string>;
let gatewayUrl: string;

/** A CA, the server's certificate (for `temporal.test`) and a client's, made with openssl. */
function makeCertificates(): TemporalServerTls {
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=svc test CA');
  const issue = (name: string, subject: string, ext: string) => {
    openssl('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', subject);
    writeFileSync(f(`${name}.ext`), ext);
    openssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      f(`${name}.pem`),
      '-extfile',
      f(`${name}.ext`),
    );
  };
  issue('server', '/CN=temporal.test', 'subjectAltName=DNS:temporal.test\nextendedKeyUsage=serverAuth\n');
  issue('client', '/CN=svc', 'extendedKeyUsage=clientAuth\n');
  return {
    certFile: f('server.pem'),
    keyFile: f('server.key'),
    caFile: f('ca.pem'),
    clientCertFile: f('client.pem'),
    clientKeyFile: f('client.key'),
    serverName: 'temporal.test',
  };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-temporal-tls-'));
  tls = makeCertificates();
  const build = await ensureTemporalServer(log);
  const pg = postgresEndpoint(process.env.DATABASE_URL!);
  const suffix = randomBytes(3).toString('hex');
  const databases = { main: `temporal_tls_${suffix}`, visibility: `temporal_tls_${suffix}_vis` };
  await setupTemporalSchemas(build, pg, databases);
  temporal = await startTemporalCluster({ build, dataDir: dir, postgres: pg, databases, port: await findFreePort(), tls, log });
  await registerTemporalNamespace({
    address: temporal.address,
    namespace: 'default',
    retentionDays: 1,
    searchAttributes: SEARCH_ATTRIBUTES,
    tls,
  });

  env = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TLS_CERT_PATH: tls.clientCertFile,
    TEMPORAL_TLS_KEY_PATH: tls.clientKeyFile,
    TEMPORAL_TLS_CA_PATH: tls.caFile,
    TEMPORAL_TLS_SERVER_NAME: tls.serverName,
    TEMPORAL_TASK_QUEUE: `svc-tls-${suffix}`,
  };
  const [port, metrics] = [await findFreePort(), await findFreePort()];
  gatewayUrl = `http://127.0.0.1:${port}`;
  apps.push(await spawnApp('worker', { ...env, WORKER_METRICS_ADDRESS: `127.0.0.1:${metrics}` }));
  apps.push(await spawnApp('gateway', { ...env, PORT: String(port), BASE_URL: gatewayUrl }));
  db = createDb(process.env.DATABASE_URL!, { max: 2 });
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await db?.close();
  await temporal?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('runs through a gateway and a worker on mutual TLS, and the CLI reaches the run', async () => {
  const { tenant, apply } = tenantFactory(db, createSecretBox(Buffer.from(process.env.SVC_ENCRYPTION_KEY!, 'hex')), () => gatewayUrl);
  const { key, workspaceId } = await tenant();
  const wf = await apply(workspaceId, { name: 'Echo', slug: 'echo', steps: [{ key: 's', type: 'transform', expression: 'input.n + 1' }] });
  const done = await apiCall(gatewayUrl, 'POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { n: 1 }, wait: true } });
  expect(done.status).toBe(201);
  expect(done.body).toMatchObject({ status: 'succeeded', output: 2 });

  const reviewed = await apply(workspaceId, {
    name: 'Ask',
    slug: 'ask',
    steps: [{ key: 'ask', type: 'review', title: 'Go?', assignees: ['ops@example.test'] }],
  });
  const paused = await apiCall(gatewayUrl, 'POST', `/api/v1/workflows/${reviewed.id}/runs`, { key, body: { input: {}, wait: true } });
  expect(paused.body.status).toBe('waiting_for_review');
  const cancelled = await svcCli(['runs', 'cancel', paused.body.id], env);
  expect({ code: cancelled.code, stderr: cancelled.stderr }).toEqual({ code: 0, stderr: '' });
  await waitFor(
    () => apiCall(gatewayUrl, 'GET', `/api/v1/runs/${paused.body.id}`, { key }),
    (r) => r.body.status === 'cancelled',
  );
});

it('refuses a client that presents no certificate', async () => {
  const attempt = Connection.connect({
    address: temporal.address,
    tls: { serverNameOverride: tls.serverName, serverRootCACertificate: readFileSync(tls.caFile) },
    connectTimeout: 5_000,
  }).then(async (c) => {
    try {
      await c.workflowService.getSystemInfo({});
    } finally {
      await c.close();
    }
  });
  await expect(attempt).rejects.toThrow();
});
