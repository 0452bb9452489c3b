#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [--temporal-store memory|file | --both] [--save NAME] [--out FILE]`:
 * starts its own embedded stack, measures the service against its baselines in the same run,
 * prints a table and writes JSON (README.md). `--both` runs the whole bench once per Temporal
 * store, one after the other, each in a process of its own.
 * Exit code 0 when every scenario ran (targets met or not), 1 when one could not run.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { connectTemporalClient } from '@svc/temporal';
import type { BenchContext } from './context';
import { createTenant } from './fixtures';
import { FloorBaseline } from './floor/client';
import { PROFILES } from './profile';
import { formatReport, limitRow, machineInfo, writeReport } from './report';
import type { BenchReport, Detail, Row } from './report';
import { RssSampler } from './rss';
import { finishRunsScenario } from './scenarios/finishRuns';
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
      'cpu-prof': { type: 'string' },
      both: { type: 'boolean', default: false },
    },
  });
  if (values.both) {
    if (values.out) throw new Error('--out names one file: use --save NAME with --both');
    const args = process.argv.slice(2).filter((a) => a !== '--both');
    for (const store of ['memory', 'file']) {
      const r = spawnSync(process.execPath, [__filename, ...args, '--temporal-store', store], { stdio: 'inherit' });
      if (r.status !== 0) return r.status ?? 1;
    }
    return 0;
  }
  const temporalStore = values['temporal-store'];
  if (temporalStore !== 'memory' && temporalStore !== 'file') throw new Error('--temporal-store must be memory or file');
  const profile = PROFILES[values.quick ? 'quick' : 'full'];
  const named = (name: string) => path.join(RESULTS_DIR, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}-${temporalStore}.json`);
  const out = path.resolve(values.out ?? named(values.quick ? 'latest-quick' : 'latest'));
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
    stack = await startBenchStack(say, { keepData: values['keep-data'], temporalStore, cpuProfileDir: values['cpu-prof'] });
    db = createDb(stack.databaseUrl, { max: 10 });
    const t = await connectTemporalClient({
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_NAMESPACE: stack.namespace,
      TEMPORAL_TLS: false,
      TEMPORAL_API_KEY: undefined,
    });
    closeTemporal = () => t.connection.close();
    rss = new RssSampler({ gateway: stack.gateway.pid, worker: stack.worker.pid, floor: stack.floor.pid });
    const bench = { db, stack };
    const ctx: BenchContext = {
      stack,
      db,
      temporal: t.client,
      floor: new FloorBaseline(t.client, stack.floorTaskQueue),
      profile,
      rss,
      say,
      newTenant: (label) => createTenant(bench.db, bench.stack.encryptionKey, bench.stack.apiUrl, label),
    };
    const waitTenant = await ctx.newTenant('wait');

    const results: Record<string, { rows: Row[]; details: Detail[]; raw: unknown }> = {};
    const scenarios: Record<string, unknown> = {};
    const measure = async <R extends { rows: Row[]; details: Detail[]; raw: object }>(name: string, run: () => Promise<R>) => {
      const started = Date.now();
      const r = await run();
      results[name] = r;
      scenarios[name] = { ...r.raw, seconds: round((Date.now() - started) / 1000, 1) };
      stack!.assertAlive();
      return r;
    };
    // The floor's figures come first: the webhook target is set from them. Start goes last:
    // in quick mode its runs are left running (profile.clearBacklogs).
    const wait = await measure('wait', () => waitRunsScenario(ctx, waitTenant));
    const finish = await measure('finish', () => finishRunsScenario(ctx));
    await measure('webhooks', () => webhooksScenario(ctx, { perSecond: finish.floorPerSecond, latency: wait.floorLatency }));
    await measure('read', () => readRunScenario(ctx, waitTenant));
    await measure('start', () => startRunsScenario(ctx));

    // Shown in the order of the targets, then memory.
    const order = ['wait', 'finish', 'start', 'read', 'webhooks'];
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
        title: `RSS max during ${phase} (gateway; worker; floor worker)`,
        value: `${round(byProc.gateway ?? NaN, 1)}; ${round(byProc.worker ?? NaN, 1)}; ${round(byProc.floor ?? NaN, 1)} MB`,
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
        floor: r.floor && { ...r.floor, value: round(r.floor.value, 2), ratio: round(r.floor.ratio, 3) },
      })),
      details,
      scenarios,
    };
    process.stdout.write(formatReport(report));
    writeReport(out, report);
    say(`wrote ${path.relative(process.cwd(), out) || out}`);
    if (values.save) {
      writeReport(named(values.save), report);
      say(`wrote ${path.relative(process.cwd(), named(values.save))}`);
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
