import type { Bench } from '../context';
import { api, succeededRun } from '../context';
import { assertClean, getLoad } from '../load';
import { makeRow } from '../report';
import type { Row } from '../report';
import { summarize } from '../stats';

const CONNECTIONS = 8;

/**
 * Reading a run: `GET /api/v1/runs/{id}` (key check, rate limits, the run read and shown) over 8
 * connections, against a bare Express route in a process of its own answering the same JSON
 * (bareRoute.ts): what the gateway costs over the least an HTTP answer costs.
 */
export async function readRow(b: Bench): Promise<Row> {
  const tenant = await b.tenant('read');
  const run = await succeededRun(b, tenant);
  const apiUrl = `${b.stack.apiUrl}/api/v1/runs/${run.id}`;
  const auth = { authorization: `Bearer ${tenant.keys[0]}` };
  await api(b, 'PUT', `${b.stack.bareUrl}/fixture`, { body: await api<unknown>(b, 'GET', apiUrl, { key: tenant.keys[0] }) });
  const bareUrl = `${b.stack.bareUrl}/runs/${run.id}`;
  b.say(`read: ${b.profile.loadSec} s of ${CONNECTIONS} connections a side`);
  await getLoad(bareUrl, {}, CONNECTIONS, 1);
  await getLoad(apiUrl, auth, CONNECTIONS, 1);
  const bare = await getLoad(bareUrl, {}, CONNECTIONS, b.profile.loadSec);
  assertClean('bare route GET', bare);
  const svc = await getLoad(apiUrl, auth, CONNECTIONS, b.profile.loadSec);
  assertClean('svc GET /runs/{id}', svc);
  return makeRow({
    id: 'read.throughput',
    title: `GET /runs/{id} requests/s, ${CONNECTIONS} connections`,
    unit: '/s',
    svc: { name: 'svc', value: svc.perSecond, latency: summarize(svc.latencies) },
    baseline: { name: 'bare Express route', value: bare.perSecond, latency: summarize(bare.latencies) },
    target: { op: '>=', bound: 0.35, text: '≥ 0.35×' },
  });
}
