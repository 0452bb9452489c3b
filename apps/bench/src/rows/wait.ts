import type { Bench } from '../context';
import { succeededRun } from '../context';
import { makeRow } from '../report';
import type { Row } from '../report';
import { summarize } from '../stats';

/**
 * A whole run, one at a time: `POST …/runs` with `wait: true` until the run is answered
 * `succeeded`, against the SDK floor's `client.workflow.execute` of the same transform. The two
 * alternate call by call, so whatever the machine does meanwhile weighs on both alike.
 */
export async function waitRow(b: Bench): Promise<Row> {
  const tenant = await b.tenant('wait');
  const svc = () => succeededRun(b, tenant);
  const sides = { floor: [] as number[], svc: [] as number[] };
  const timed = async (call: () => Promise<unknown>) => {
    const t = performance.now();
    await call();
    return performance.now() - t;
  };
  b.say(`wait: ${b.profile.waitRuns} runs a side, one at a time, alternating`);
  for (let i = 0; i < b.profile.warmup + b.profile.waitRuns; i++) {
    const [floor, api] = [await timed(b.floor.execute), await timed(svc)];
    if (i < b.profile.warmup) continue;
    sides.floor.push(floor);
    sides.svc.push(api);
  }
  const [svcLatency, floorLatency] = [summarize(sides.svc), summarize(sides.floor)];
  return makeRow({
    id: 'wait.p50',
    title: 'wait: true, one-step transform, p50',
    unit: 'ms',
    svc: { name: 'svc', value: svcLatency.p50, latency: svcLatency },
    baseline: { name: 'SDK floor execute', value: floorLatency.p50, latency: floorLatency },
    target: { op: '<=', bound: 1.5, text: '≤ 1.5×' },
  });
}
