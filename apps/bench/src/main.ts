#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [--store memory|file|both|real] [--save NAME] [--out FILE] [--keep-data]`:
 * starts a stack of its own, measures each row of svc against its baseline in the same run,
 * prints a table and writes one JSON file per Temporal store (docs/performance.md); `both`
 * measures each store in turn, each on a stack of its own. Exit code 0 when every row was
 * measured (met or not), 1 when one could not be.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROFILES } from './context';
import type { Bench, Profile } from './context';
import { floorClient } from './floor/client';
import { formatReport, informational, makeRow } from './report';
import type { BenchReport, Row } from './report';
import { finishRow } from './rows/finish';
import { neighbourRows } from './rows/neighbour';
import { readRow } from './rows/read';
import { startRow } from './rows/start';
import { waitRow } from './rows/wait';
import { webhooksRow } from './rows/webhooks';
import { REPO_ROOT, startBenchStack } from './stack';
import { round } from './stats';
import { createTenant } from './tenants';

/** The rows, in the order measured; each may read the rows before it. */
const ROWS: Array<(b: Bench, before: Row[]) => Promise<Row | Row[]>> = [waitRow, finishRow, startRow, readRow, webhooksRow, neighbourRows];
/** On the real Temporal server: what a deployment meets, beside the SDK floor on the same server, judged against nothing. */
const REAL_SERVER_ROWS: Array<(b: Bench) => Promise<Row>> = [waitRow, finishRow];

const t0 = Date.now();
const say = (msg: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      store: { type: 'string', default: 'memory' },
      save: { type: 'string' },
      out: { type: 'string' },
      'keep-data': { type: 'boolean', default: false },
    },
  });
  const stores = values.store === 'both' ? ['memory', 'file'] : [values.store];
  if (!stores.every((s): s is BenchReport['store'] => s === 'memory' || s === 'file' || s === 'real'))
    throw new Error('--store must be memory, file, both or real');
  if (values.out && stores.length > 1) throw new Error('--out names one file: use --save NAME with --store both');
  for (const store of stores) {
    const report = await measure(store, PROFILES[values.quick ? 'quick' : 'full'], values['keep-data']);
    process.stdout.write(formatReport(report));
    const named = (name: string) => path.join(REPO_ROOT, 'apps', 'bench', 'results', `${name.replace(/[^\w.-]/g, '_')}-${store}.json`);
    const files = [values.out ? path.resolve(values.out) : named(values.quick ? 'latest-quick' : 'latest')];
    if (values.save) files.push(named(values.save));
    for (const file of files) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      say(`wrote ${path.relative(process.cwd(), file)}`);
    }
  }
  return 0;
}

async function measure(store: BenchReport['store'], profile: Profile, keepData: boolean): Promise<BenchReport> {
  const measuredAt = new Date();
  const loadBefore = os.loadavg()[0];
  say(`${profile.name} bench, Temporal store: ${store}`);
  const stack = await startBenchStack(say, { store, keepData });
  const interrupted = () => void stack.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    const bench: Bench = {
      stack,
      floor: floorClient(stack.temporal, stack.floorTaskQueue),
      profile,
      say,
      tenant: (label, o) => createTenant(stack, label, o),
    };
    const rows: Row[] = [];
    if (store === 'real') {
      for (const row of REAL_SERVER_ROWS) {
        rows.push(informational(await row(bench)));
        stack.assertAlive();
      }
    } else {
      for (const row of ROWS) {
        rows.push(...[await row(bench, rows)].flat());
        stack.assertAlive();
      }
      rows.push(memoryRow('gateway', stack.pids.gateway, 150), memoryRow('worker', stack.pids.worker, 300));
    }
    const cpus = os.cpus();
    return {
      mode: profile.name,
      store,
      measuredAt: measuredAt.toISOString(),
      ...gitState(),
      durationSec: round((Date.now() - measuredAt.getTime()) / 1000, 0),
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model ?? 'unknown',
        memoryGb: round(os.totalmem() / 1024 ** 3, 1),
        node: process.version,
      },
      loadAverage: { before: round(loadBefore), after: round(os.loadavg()[0]) },
      rows,
    };
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    await stack.stop();
  }
}

/** A process's peak resident memory over the whole bench (VmHWM), against its limit. */
function memoryRow(name: 'gateway' | 'worker', pid: number, limitMb: number): Row {
  const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return makeRow({
    id: `rss.${name}`,
    title: `${name} peak RSS`,
    unit: 'MB',
    svc: { name, value: kb / 1024 },
    baseline: { name: 'limit', value: limitMb },
    target: { op: '<', bound: 1, text: `< ${limitMb} MB` },
  });
}

/** The commit measured, and whether tracked files differed from it (the bench's own results aside). */
function gitState(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)apps/bench/results');
  return { commit: git('rev-parse', 'HEAD'), dirty: changed !== '' };
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    say(`failed: ${err.stack ?? String(err)}`);
    process.exit(1);
  },
);
