#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [-- --out FILE] [-- --save NAME]`: starts its own embedded stack,
 * measures the service against its baselines in the same run, prints a table and writes JSON.
 * Exit code 0 when every scenario ran (targets met or not), 1 when one could not run.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { connectTemporalClient } from '@svc/temporal';
import type { BenchContext } from './context';
import { createTenant } from './fixtures';
import { PROFILES } from './profile';
import { formatReport, limitRow, machineInfo, writeReport } from './report';
import type { BenchReport, Detail, Row } from './report';
import { RssSampler } from './rss';
import { readRunScenario } from './scenarios/readRun';
import { startRunsScenario } from './scenarios/startRuns';
import { waitRunsScenario } from './scenarios/waitRuns';
import { webhooksScenario } from './scenarios/webhooks';
import { REPO_ROOT, startBenchStack } from './stack';
import type { BenchStack } from './stack';
import { round } from './stats';

const RESULTS_DIR = path.join(REPO_ROOT, 'apps', 'bench', 'results');

const t0 = Date.now();
const say = (msg: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      save: { type: 'string' },
      'keep-data': { type: 'boolean', default: false },
      'temporal-store': { type: 'string', default: 'memory' },
    },
  });
  const temporalStore = values['temporal-store'];
  if (temporalStore !== 'memory' && temporalStore !== 'file') throw new Error('--temporal-store must be memory or file');
  const profile = PROFILES[values.quick ? 'quick' : 'full'];
  const out = path.resolve(values.out ?? path.join(RESULTS_DIR, values.quick ? 'latest-quick.json' : 'latest.json'));
  const started = new Date();
  const loadBefore = os.loadavg()[0];

  let stack: BenchStack | undefined;
  let db: DbHandle | undefined;
  let closeTemporal: (() => Promise<void>) | undefined;
  let rss: RssSampler | undefined;
  let stopping = false;
  const cleanup = async () => {
    rss?.stop();
    await closeTemporal?.().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await stack?.stop();
  };
  const deadline = setTimeout(() => {
    if (stopping) return;
    stopping = true;
    say(`gave up after ${profile.deadlineMs / 60_000} min; stopping the bench stack ...`);
    void cleanup().finally(() => process.exit(1));
  }, profile.deadlineMs);
  deadline.unref();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      if (stopping) return;
      stopping = true;
      say(`${sig}: stopping the bench stack ...`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    say(`mode: ${profile.name}; Temporal store: ${temporalStore}`);
    stack = await startBenchStack(say, { keepData: values['keep-data'], temporalStore });
    db = createDb(stack.databaseUrl, { max: 10 });
    const t = await connectTemporalClient({
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_NAMESPACE: stack.namespace,
      TEMPORAL_TLS: false,
      TEMPORAL_API_KEY: undefined,
    });
    closeTemporal = () => t.connection.close();
    rss = new RssSampler({ gateway: stack.gateway.pid, worker: stack.worker.pid });
    const bench = { db, stack };
    const ctx: BenchContext = {
      stack,
      db,
      temporal: t.client,
      profile,
      rss,
      say,
      newTenant: (label) => createTenant(bench.db, bench.stack.encryptionKey, bench.stack.apiUrl, label),
    };
    const waitTenant = await ctx.newTenant('wait');

    const results: Record<string, { rows: Row[]; details: Detail[] }> = {};
    const scenarios: Record<string, unknown> = {};
    for (const [name, run] of [
      // Start last: in quick mode its runs are left running (profile.clearBacklogs).
      ['wait', () => waitRunsScenario(ctx, waitTenant)],
      ['read', () => readRunScenario(ctx, waitTenant)],
      ['webhooks', () => webhooksScenario(ctx)],
      ['start', () => startRunsScenario(ctx)],
    ] as const) {
      const t0 = Date.now();
      const r = await run();
      results[name] = r;
      scenarios[name] = { ...r.raw, seconds: round((Date.now() - t0) / 1000, 1) };
      stack.assertAlive();
    }

    // Shown in the order of the issue: start, wait, read, webhooks, then memory.
    const order = ['start', 'wait', 'read', 'webhooks'];
    const rows: Row[] = order.flatMap((n) => results[n].rows);
    const details: Detail[] = order.flatMap((n) => results[n].details);
    rss.stop();
    const peaks = rss.lifetimePeaks();
    rows.push(
      limitRow({
        id: 'rss.gateway',
        title: 'gateway peak RSS (whole bench)',
        unit: 'MB',
        value: peaks.gateway,
        limit: 150,
        target: { op: '<', bound: 1, text: '< 150 MB' },
      }),
      limitRow({
        id: 'rss.worker',
        title: 'worker peak RSS (whole bench)',
        unit: 'MB',
        value: peaks.worker,
        limit: 300,
        target: { op: '<', bound: 1, text: '< 300 MB' },
      }),
    );
    for (const [phase, byProc] of Object.entries(rss.peaks)) {
      details.push({
        title: `RSS max during ${phase} (gateway; worker)`,
        value: `${round(byProc.gateway ?? NaN, 1)}; ${round(byProc.worker ?? NaN, 1)} MB`,
      });
    }
    scenarios.rss = { lifetimePeakMb: peaks, perPhaseMaxMb: rss.peaks };

    const finished = new Date();
    const report: BenchReport = {
      mode: profile.name,
      temporalStore,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationSec: round((finished.getTime() - started.getTime()) / 1000, 1),
      machine: machineInfo(),
      loadAverage: { before: round(loadBefore, 2), after: round(os.loadavg()[0], 2) },
      rows: rows.map((r) => ({
        ...r,
        value: round(r.value, 2),
        baseline: r.baseline === null ? null : round(r.baseline, 2),
        ratio: round(r.ratio, 3),
      })),
      details,
      scenarios,
    };
    process.stdout.write(formatReport(report));
    writeReport(out, report);
    say(`wrote ${path.relative(process.cwd(), out) || out}`);
    if (values.save) {
      const named = path.join(RESULTS_DIR, `${values.save.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
      writeReport(named, report);
      say(`wrote ${path.relative(process.cwd(), named)}`);
    }
    return 0;
  } catch (err) {
    say(`failed: ${(err as Error).stack ?? String(err)}`);
    return 1;
  } finally {
    if (!stopping) await cleanup();
  }
}

void main().then((code) => process.exit(code));
