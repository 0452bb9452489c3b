import type { Bench } from '../context';
import { postRun } from '../context';
import { assertClean, fnLoad } from '../load';
import { makeRow } from '../report';
import type { Row } from '../report';
import { summarize } from '../stats';

const CALLERS = 16;

/**
 * Runs finished per second: 16 `wait: true` callers in a closed loop (each sends its next run as
 * soon as the last came back) against 16 callers of the SDK floor's `execute`. Only runs answered
 * `succeeded` count; the runs in flight at the end are awaited and counted.
 */
export async function finishRow(b: Bench): Promise<Row> {
  const tenant = await b.tenant('finish');
  let notSucceeded = 0;
  const svc = async () => {
    if ((await postRun(b, tenant, { wait: true })).status !== 'succeeded') notSucceeded++;
  };
  const load = { concurrency: CALLERS, seconds: b.profile.loadSec };
  b.say(`finish: ${b.profile.loadSec} s of ${CALLERS} callers a side`);
  const warmup = { concurrency: CALLERS, amount: b.profile.warmup * 4 };
  await fnLoad(b.floor.execute, warmup);
  await fnLoad(svc, warmup);
  notSucceeded = 0;
  const floor = await fnLoad(b.floor.execute, load);
  assertClean('SDK floor execute', floor);
  const api = await fnLoad(svc, load);
  assertClean('svc wait: true', api);
  return makeRow({
    id: 'finish.throughput',
    title: `runs finished/s, ${CALLERS} wait: true callers`,
    unit: '/s',
    svc: { name: 'svc', value: ((api.ok - notSucceeded) / api.elapsedMs) * 1000, latency: summarize(api.latencies) },
    baseline: { name: 'SDK floor execute', value: floor.perSecond, latency: summarize(floor.latencies) },
    target: { op: '>=', bound: 0.7, text: '≥ 0.7×' },
    context: { answeredNotSucceeded: notSucceeded },
  });
}
