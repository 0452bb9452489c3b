import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers/processes';

/**
 * `npm run bench -- --quick` end to end: the real bench (apps/bench/dist/main.js) brings up its
 * own embedded stack, measures every scenario against its baseline and reports. Timing is not
 * asserted (these shared 2-core machines are too noisy for that); what is: every ratio row is
 * there, numeric, with its target, in the JSON file and in the printed table.
 */

const EXPECTED_ROWS = [
  'wait.latency.p50',
  'finish.throughput',
  'start.throughput',
  'read.throughput',
  'webhooks.p95',
  'rss.gateway',
  'rss.worker',
];

/** The hand-written floor measured beside each row that has one (apps/bench/src/floor/), by row. */
const ROW_FLOORS: Record<string, string> = {
  'wait.latency.p50': 'contract floor',
  'finish.throughput': 'API floor',
  'start.throughput': "durable floor's start",
  'read.throughput': 'read floor',
  'webhooks.p95': 'durable floor with delivery',
};

/**
 * Details that must be there too, each with a measured figure: the floor's webhook path and the
 * durable floor's beside svc's at the row's rate, svc's ratio to each, and where each one's
 * latency goes (apps/bench/src/scenarios/webhooks.ts).
 */
const EXPECTED_DETAILS = [
  /^webhooks, runs offered at (\d+)\/s: delivery p50 \/ p95 \/ p99$/,
  /^webhooks, floor with delivery, runs offered at (\d+)\/s: delivery p50 \/ p95 \/ p99$/,
  /^webhooks at (\d+)\/s: svc delivery p95 ÷ floor-with-delivery p95$/,
  /^webhooks, durable floor with delivery, runs offered at (\d+)\/s: delivery p50 \/ p95 \/ p99$/,
  /^webhooks at (\d+)\/s: svc delivery p95 ÷ durable-floor-with-delivery p95$/,
  /^webhooks at (\d+)\/s, p50 \/ p95: committed → delivery started; → its first task picked up; → received \(svc \| floor with delivery \| durable floor with delivery\)$/,
];

/** Every process's CPU (apps/bench/src/cpu.ts), e.g. `33.8 ms (worker 13.9, Temporal server 10.7, gateway 4.4, PostgreSQL 3.2, bench 0.9)`. */
const CPU_TEXT =
  /^\d+(\.\d+)? ms \((Temporal server|worker|floor worker|gateway|durable floor API|bare route|PostgreSQL|bench) \d+(\.\d+)?(, |\)$)/;

/**
 * Details whose value must read as a figure: the durable floor's (floor/durableApi.ts: Express,
 * PostgreSQL and the Temporal client by hand), each measured beside the floor (its one-at-a-time
 * latency and its throughput) and beside the SDK's start, and where a finished run's and a
 * start's CPU goes.
 */
const FIGURE_DETAILS: Array<[RegExp, RegExp]> = [
  [/^one at a time, p50 \/ p95 \/ p99: durable floor/, /^\d+(\.\d+)? \/ \d+(\.\d+)? \/ \d+(\.\d+)? ms \(\d+(\.\d+)?×\)$/],
  [/^runs finished\/s, \d+ callers: durable floor/, /^\d+(\.\d+)? \/s \(\d+(\.\d+)?×\)$/],
  // The durable floor with svc's Temporal contract (apps/bench/src/floor/durableApi.ts).
  [/^one at a time, p50 \/ p95 \/ p99: contract floor/, /^\d+(\.\d+)? \/ \d+(\.\d+)? \/ \d+(\.\d+)? ms \(\d+(\.\d+)?×\)$/],
  [/^runs finished\/s, \d+ callers: contract floor/, /^\d+(\.\d+)? \/s \(\d+(\.\d+)?×\)$/],
  // The contract floor with svc's API besides, the finish row's floor (apps/bench/src/floor/apiRoutes.ts).
  [/^runs finished\/s, \d+ callers: API floor/, /^\d+(\.\d+)? \/s \(\d+(\.\d+)?×\)$/],
  // For svc and the floors.
  ...['svc wait: true', 'durable floor', 'contract floor', 'API floor', 'floor, local activity'].map((side): [RegExp, RegExp] => [
    new RegExp(`^CPU per finished run, \\d+ callers: ${side} \\(`),
    CPU_TEXT,
  ]),
  // The start row's durable floor (an SDK start behind an Express route writing the run's rows),
  // against the SDK start and svc against it, and each start side's CPU (scenarios/startRuns.ts).
  [/^start throughput, \d+ callers: the durable floor's start/, /^\d+(\.\d+)? \/s \(\d+(\.\d+)?×; svc's API against it \d+(\.\d+)?×\)$/],
  ...['SDK start', 'durable floor start', 'API start'].map((side): [RegExp, RegExp] => [
    new RegExp(`^CPU per start under load, \\d+ callers: ${side} \\(`),
    CPU_TEXT,
  ]),
  // The read row's floor (a run and its steps read by a hand-written route in one statement),
  // against the bare route and svc against it, and each read side's CPU (scenarios/readRun.ts).
  [/^GET \/runs\/\{id\}: the read floor/, /^\d+ \/s \(\d+(\.\d+)?×; svc's API against it \d+(\.\d+)?×\)$/],
  ...['bare route', 'read floor', 'API'].map((side): [RegExp, RegExp] => [
    new RegExp(`^CPU per GET, \\d+ connections: ${side} \\(`),
    CPU_TEXT,
  ]),
  // What the webhook row's rate cost the machine, each side (apps/bench/src/scenarios/webhooks.ts), e.g.
  // `52.3 ms (Temporal server 21.0, worker 18.2, …); 1.94 cores | 31.0 ms (…); 1.21 cores | 40.2 ms (…); 1.52 cores`.
  [
    /^webhooks at \d+\/s: CPU per event received, by process; cores kept busy over the phase, of \d+ \(svc \| floor with delivery \| durable floor with delivery\)$/,
    /^(\d+(\.\d+)? ms \((Temporal server|worker|floor worker|gateway|durable floor API|PostgreSQL|bench) \d+(\.\d+)?[^)]*\); \d+(\.\d+)? cores( \| |$)){3}$/,
  ],
  // Each finish side's rounds, e.g. `…; svc wait: true: 58/s at 30.7 ms (11.2), 52/s at 33.1 ms (15.1); …`.
  ...['svc wait: true', 'floor, local activity'].map((side): [RegExp, RegExp] => [
    /^each round in order, \d+ callers: /,
    new RegExp(`(^|; )${side}: \\d+/s at \\d+(\\.\\d+)? ms \\(\\d+(\\.\\d+)?\\)(;|,|$)`),
  ]),
];

interface ReportRow {
  id: string;
  title: string;
  value: number;
  baseline: number | null;
  ratio: number;
  target: { op: string; bound: number; text: string };
  pass: boolean;
  floor?: { name: string; value: number; ratio: number; pass: boolean };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function runBench(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'apps/bench/dist/main.js'), ...args], {
      cwd: ROOT,
      // The bench brings up servers of its own; nothing of the test stack's may leak into it.
      env: { ...process.env, DATABASE_URL: '', TEMPORAL_ADDRESS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGTERM'); // the bench stops its stack on SIGTERM
      reject(new Error(`bench --quick did not finish in ${timeoutMs / 1000}s:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run bench -- --quick', () => {
  it('measures every figure beside its baseline and reports each ratio with its target', async () => {
    const out = path.join(dir, 'quick.json');
    const { code, stdout, stderr } = await runBench(['--quick', '--out', out], 240_000);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(existsSync(out)).toBe(true);

    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      mode: string;
      rows: ReportRow[];
      details: Array<{ title: string; value: string }>;
      machine: { cpus: number };
    };
    expect(report.mode).toBe('quick');
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.rows.map((r) => r.id)).toEqual(EXPECTED_ROWS);
    for (const row of report.rows) {
      expect({ id: row.id, value: Number.isFinite(row.value), ratio: Number.isFinite(row.ratio) }).toEqual({
        id: row.id,
        value: true,
        ratio: true,
      });
      expect(row.value).toBeGreaterThan(0);
      expect(row.ratio).toBeGreaterThan(0);
      if (row.baseline !== null) {
        expect(row.baseline).toBeGreaterThan(0);
        expect(row.ratio).toBeCloseTo(row.value / row.baseline, 1);
      }
      expect(['<=', '>=', '<']).toContain(row.target.op);
      expect(row.target.text).not.toBe('');
      expect(typeof row.pass).toBe('boolean');
      // The printed table has the row, with its ratio and a verdict.
      const line = stdout.split('\n').find((l) => l.startsWith(row.title));
      expect(line).toBeDefined();
      expect(line).toMatch(/\d+\.\d\d×/);
      expect(line).toMatch(/PASS|MISS/);
      // Its floor, held to the same target against the same baseline, printed beside it.
      const floor = ROW_FLOORS[row.id];
      if (!floor) {
        expect(row.floor).toBeUndefined();
        continue;
      }
      expect(row.floor).toEqual({ name: floor, value: expect.any(Number), ratio: expect.any(Number), pass: expect.any(Boolean) });
      expect(row.floor!.value).toBeGreaterThan(0);
      expect(row.floor!.ratio).toBeCloseTo(row.floor!.value / row.baseline!, 1);
      expect(line).toContain(`${row.floor!.ratio.toFixed(2)}× ${row.floor!.pass ? 'PASS' : 'MISS'} (${floor})`);
    }
    const missed = report.rows.filter((r) => !r.pass);
    const atFloor = missed.filter((r) => r.floor && !r.floor.pass).length;
    expect(stdout).toContain(
      `${report.rows.length - missed.length} of ${report.rows.length} targets met` +
        (missed.length ? `; of the ${missed.length} missed, ${atFloor} missed by the hand-written floor beside them too` : ''),
    );

    // The webhook row's rate has each detail, with figures in milliseconds, in the JSON and printed.
    const rowRate = /offered at (\d+)\/s/.exec(report.rows.find((r) => r.id === 'webhooks.p95')!.title)![1];
    for (const pattern of EXPECTED_DETAILS) {
      const detail = report.details.find((d) => pattern.exec(d.title)?.[1] === rowRate);
      expect({ pattern: String(pattern), found: detail !== undefined }).toEqual({ pattern: String(pattern), found: true });
      expect(detail!.value).toMatch(/^\d+(\.\d+)?(×)? .*\d+(\.\d+)? ms/);
      expect(detail!.value).not.toMatch(/NaN|Infinity/);
      expect(stdout.split('\n').some((l) => l.startsWith(detail!.title))).toBe(true);
    }
    for (const [title, value] of FIGURE_DETAILS) {
      const detail = report.details.find((d) => title.test(d.title));
      expect({ title: String(title), value: detail?.value }).toEqual({ title: String(title), value: expect.stringMatching(value) });
      expect(detail!.value).not.toMatch(/NaN|Infinity/);
    }
  }, 300_000);
});
