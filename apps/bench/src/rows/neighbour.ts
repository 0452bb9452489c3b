import { PLANS, WORKSPACE_RATE_MULTIPLIER } from '@svc/domain';
import type { Bench } from '../context';
import { postRun, runFigures, succeededRun, waitUntil } from '../context';
import { assertClean, fnLoad } from '../load';
import { makeRow } from '../report';
import type { Row } from '../report';
import { summarize } from '../stats';

/** One transform that keeps a sandbox thread busy for a few hundred ms, under the 1 s expression limit. */
export const SLOW_WORKFLOW = {
  name: 'Bench slow expression',
  slug: 'bench-slow',
  steps: [{ key: 'burn', type: 'transform', expression: '$sum($map([1..25000], function($x) { $x * $x % 7 }))' }],
  output: 'steps.burn.output',
};

/** Every answer of the measured tenant within this, beside the flood. */
const ANSWER_WITHIN_MS = 5_000;

/**
 * A noisy neighbour: tenant V's one-step `wait: true` runs, one at a time, first alone, then while
 * tenant A (another workspace, on the basic plan) starts runs of SLOW_WORKFLOW as fast as its plan
 * allows: each key at the per-key rate, with as many keys as the workspace's figure allows. The
 * target: none of V's runs fails and each is answered within 5 s. Beside it, an aim: V's p95
 * beside the flood at most 3× its p95 alone. It measures what holds; it assumes nothing of how.
 */
export async function neighbourRows(b: Bench): Promise<Row[]> {
  const v = await b.tenant('neighbour-v');
  const a = await b.tenant('neighbour-a', { plan: 'basic', keys: WORKSPACE_RATE_MULTIPLIER, workflow: SLOW_WORKFLOW });
  const perKey = PLANS.basic.ratePerMin / 60;
  const vRuns = (o: { seconds: number }) => fnLoad(() => succeededRun(b, v), { concurrency: 1, ...o });

  b.say(`neighbour: V alone for ${b.profile.neighbourSec} s`);
  await vRuns({ seconds: 1 });
  const alone = await vRuns({ seconds: b.profile.neighbourSec });
  assertClean('V alone', alone);
  b.say(`neighbour: A starts ${perKey * a.keys.length} slow runs/s over ${a.keys.length} keys; V again, for ${b.profile.neighbourSec} s`);
  const stopFlood = new AbortController();
  const flood = Promise.all(
    a.keys.map((key) => fnLoad(() => postRun(b, a, { wait: false, key }), { concurrency: 4, rate: perKey, signal: stopFlood.signal })),
  );
  // From A's first ended run on, its slow expressions are in the sandbox.
  const aRuns = () => runFigures(b, [a.workspaceId]);
  const aEnded = async () => {
    const runs = await aRuns();
    return runs.succeeded + runs.failed > 0;
  };
  if (!(await waitUntil(b, 60, aEnded))) throw new Error('no run of the flood ended in 60 s');
  const beside = await vRuns({ seconds: b.profile.neighbourSec });
  stopFlood.abort();
  const starts = await flood;
  const refused = starts
    .flatMap((l) => Object.entries(l.errors))
    .reduce((n, [why, count]) => n + (why.startsWith('HTTP 429') ? count : 0), 0);
  const { succeeded, failed, unfinished, stepMsP50, stepMsMax } = await aRuns();
  const context = {
    aStartsOfferedPerSecond: perKey * a.keys.length,
    aStartsAccepted: starts.reduce((n, l) => n + l.ok, 0),
    aStartsRefused429: refused,
    aStartsFailedOtherwise: starts.reduce((n, l) => n + l.failed, 0) - refused,
    aRunsSucceeded: succeeded,
    aRunsFailed: failed,
    aRunsUnfinished: unfinished,
    aStepMsP50: stepMsP50,
    aStepMsMax: stepMsMax,
  };

  const [besideLatency, aloneLatency] = [summarize(beside.latencies), summarize(alone.latencies)];
  const svc = { name: 'V beside A', value: besideLatency.max, latency: besideLatency };
  return [
    makeRow({
      id: 'neighbour.slowest',
      title: "noisy neighbour: V's slowest answer beside A",
      unit: 'ms',
      svc,
      baseline: { name: 'limit', value: ANSWER_WITHIN_MS },
      target: { op: '<=', bound: 1, text: '≤ 5 s, none failed' },
      failures: beside.failed,
      context,
    }),
    makeRow({
      id: 'neighbour.p95',
      title: "noisy neighbour: V's p95 beside A",
      unit: 'ms',
      svc: { ...svc, value: besideLatency.p95 },
      baseline: { name: 'V alone', value: aloneLatency.p95, latency: aloneLatency },
      target: { op: '<=', bound: 3, text: '≤ 3× (aim)' },
      binding: false,
    }),
  ];
}
