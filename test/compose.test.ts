import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { APP_PROCESSES, REQUIRED_APP_SETTINGS } from '@svc/config';
import { SEARCH_ATTRIBUTES } from '@svc/devstack';
import * as searchAttributes from '../temporal/shared/searchAttributes';
import { ROOT } from './helpers/processes';

/**
 * docker-compose.yml, read as Docker would (no Docker engine runs on these machines): the
 * README's `docker compose up --scale gateway=N --scale worker=M` must be able to work.
 */

interface Service {
  ports?: unknown[];
  environment?: Record<string, string>;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}
const compose = YAML.parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  configs: Record<string, { content: string }>;
};
const SCALED = ['gateway', 'worker'] as const;

it('publishes no host port from a scaled service; one load balancer publishes the API, gated on gateway readiness', () => {
  for (const name of SCALED) expect({ name, ports: compose.services[name].ports ?? [] }).toEqual({ name, ports: [] });
  const lb = compose.services.lb;
  expect(lb.ports).toEqual(['8080:8080']);
  expect(lb.depends_on?.gateway).toEqual({ condition: 'service_healthy' });
  expect(compose.services.gateway.healthcheck).toBeDefined();
  expect(JSON.stringify(compose.services.gateway.healthcheck)).toContain('/readyz');
  const caddyfile = compose.configs.caddyfile.content;
  expect(caddyfile).toMatch(/dynamic a gateway 8080/);
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
  const forwarded = /dynamic a gateway (\d+)/.exec(compose.configs.caddyfile.content)?.[1];
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
