import type { BenchContext } from '../context';
import { authHeaders } from '../context';
import { BENCH_INPUT } from '../fixtures';
import type { Tenant } from '../fixtures';
import { alternate, assertClean, fnLoad, httpLoad } from '../load';
import { ratioRow } from '../report';
import type { Row } from '../report';
import { SdkBaseline } from '../sdk';
import { summarize } from '../stats';

/**
 * A whole run, start to result: `POST …/runs` with `wait: true` for the one-step transform
 * workflow against `client.workflow.execute` of the same workflow. One request at a time.
 * Every API answer must be the run, `succeeded`.
 */
export async function waitRunsScenario(ctx: BenchContext, tenant: Tenant) {
  const { profile: p, stack } = ctx;
  ctx.rss.setPhase('wait');
  const sdk = await SdkBaseline.create(ctx.db, ctx.temporal, stack.taskQueue, tenant);
  let notSucceeded = 0;
  const api = (amount: number) =>
    httpLoad({
      url: `${stack.apiUrl}/api/v1/workflows/${tenant.workflowId}/runs`,
      method: 'POST',
      headers: authHeaders(tenant.key, true),
      body: JSON.stringify({ input: BENCH_INPUT, wait: true }),
      connections: 1,
      amount,
      onBody: (status, body) => {
        if (status === 201 && (JSON.parse(body) as { status: string }).status !== 'succeeded') notSucceeded++;
      },
    });
  const sdkSide = async (amount: number) => {
    await sdk.prepare(amount);
    return fnLoad(sdk.execute, { concurrency: 1, amount });
  };

  ctx.say('wait: warming up');
  const warm = Math.max(1, Math.round(p.warmup / 4));
  await sdkSide(warm);
  await api(warm);

  ctx.say(`wait: ${p.waitAmount} sequential runs per side per round`);
  const r = await alternate(
    p.rounds,
    () => sdkSide(p.waitAmount),
    () => api(p.waitAmount),
  );
  assertClean('SDK execute', r.baseline);
  assertClean('API wait: true', r.service);
  if (notSucceeded) throw new Error(`wait: true answered ${notSucceeded} runs that had not succeeded`);

  const l = { sdk: summarize(r.baseline.latencies), api: summarize(r.service.latencies) };
  const rows: Row[] = [
    ratioRow({
      id: 'wait.latency.p50',
      title: 'wait: true (1-step transform): p50',
      unit: 'ms',
      value: l.api.p50,
      baseline: l.sdk.p50,
      baselineName: 'SDK workflow.execute',
      target: { op: '<=', bound: 1.2, text: '≤ 1.2×' },
    }),
    ratioRow({
      id: 'wait.latency.p99',
      title: 'wait: true (1-step transform): p99',
      unit: 'ms',
      value: l.api.p99,
      baseline: l.sdk.p99,
      baselineName: 'SDK workflow.execute',
      target: { op: '<=', bound: 1.2, text: '≤ 1.2×' },
    }),
  ];
  return { rows, details: [], raw: { latency: l } };
}
