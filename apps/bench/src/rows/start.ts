import type { Bench } from '../context';
import { postRun, runFigures, waitUntil } from '../context';
import { assertClean, fnLoad } from '../load';
import { makeRow } from '../report';
import type { Row } from '../report';
import { SdkStarts } from '../sdk';
import { summarize } from '../stats';
import type { Tenant } from '../tenants';

const CALLERS = 8;
/** SDK runs written ahead per second of load: above any start rate two cores reach. */
const PREPARED_PER_SEC = 400;

/**
 * Starting a run: `POST …/runs` (no wait) from 8 callers in a closed loop, against the SDK's own
 * `workflow.start` of svc's run workflow from as many (sdk.ts). Each side starts on an idle
 * system: the runs the other left behind are finished first (or the wait is given up).
 */
export async function startRow(b: Bench): Promise<Row> {
  const [sdkTenant, apiTenant] = [await b.tenant('start-sdk'), await b.tenant('start-api')];
  const sdk = await SdkStarts.create(b.stack.db, b.stack.temporal, b.stack.taskQueue, sdkTenant);
  const load = { concurrency: CALLERS, seconds: b.profile.loadSec };
  b.say(`start: ${b.profile.loadSec} s of ${CALLERS} callers a side`);
  await sdk.prepare(b.profile.warmup);
  await fnLoad(sdk.start, { concurrency: 1, amount: b.profile.warmup });
  await fnLoad(() => postRun(b, apiTenant, { wait: false }), { concurrency: 1, amount: b.profile.warmup });
  const leftBefore = await drain(b, [sdkTenant, apiTenant]);
  await sdk.prepare(PREPARED_PER_SEC * b.profile.loadSec);
  const base = await fnLoad(sdk.start, load);
  assertClean('SDK workflow.start', base);
  await sdk.discardUnused();
  const leftBySdk = await drain(b, [sdkTenant]);
  const api = await fnLoad(() => postRun(b, apiTenant, { wait: false }), load);
  assertClean('svc POST …/runs', api);
  const leftBySvc = await drain(b, [apiTenant]);
  return makeRow({
    id: 'start.throughput',
    title: `runs started/s, ${CALLERS} callers (no wait)`,
    unit: '/s',
    svc: { name: 'svc', value: api.perSecond, latency: summarize(api.latencies) },
    baseline: { name: 'SDK workflow.start', value: base.perSecond, latency: summarize(base.latencies) },
    target: { op: '>=', bound: 0.8, text: '≥ 0.8×' },
    context: { runsUnfinishedAfterDrain: leftBefore + leftBySdk + leftBySvc },
  });
}

/** Waits until the tenants' runs have all ended, for at most the profile's drain time; answers how many had not. */
async function drain(b: Bench, tenants: Tenant[]): Promise<number> {
  const ids = tenants.map((t) => t.workspaceId);
  const unfinished = async () => (await runFigures(b, ids)).unfinished;
  await waitUntil(b, b.profile.drainSec, async () => (await unfinished()) === 0);
  return unfinished();
}
