import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers/processes';

/**
 * `npm run bench -- --quick` end to end: the real bench brings up a stack of its own and measures
 * every row against its baseline. No figure is asserted (these shared 2-core machines are too
 * noisy for that); what is: every row is there with a value, a baseline, a ratio that is their
 * quotient, a target and a verdict that follows from them, in the JSON file and in the table.
 */

const EXPECTED_ROWS = [
  'wait.p50',
  'finish.throughput',
  'start.throughput',
  'read.throughput',
  'webhooks.p95',
  'neighbour.slowest',
  'neighbour.p95',
  'rss.gateway',
  'rss.worker',
];
/** Rows whose figures are latencies, and those whose baseline was measured as latencies too. */
const WITH_LATENCY = EXPECTED_ROWS.filter((id) => !id.startsWith('rss.'));
const BASELINE_LATENCY = WITH_LATENCY.filter((id) => id !== 'neighbour.slowest');

interface Latency {
  p50: number;
  p95: number;
  p99: number;
}
interface Side {
  name: string;
  value: number;
  latency?: Latency;
}
interface Row {
  id: string;
  title: string;
  svc: Side;
  baseline: Side;
  ratio: number;
  target: { op: '<=' | '>=' | '<'; bound: number; text: string };
  binding: boolean;
  failures?: number;
  pass: boolean;
}

const meets = ({ op, bound }: Row['target'], ratio: number) =>
  op === '<=' ? ratio <= bound : op === '>=' ? ratio >= bound : ratio < bound;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
      reject(new Error(`bench --quick did not finish in ${timeoutMs / 1000} s:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it('measures every row beside its baseline and judges each ratio against its target', async () => {
  const out = path.join(dir, 'quick.json');
  const { code, stdout, stderr } = await runBench(['--quick', '--out', out], 280_000);
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });

  const report = JSON.parse(readFileSync(out, 'utf8')) as { mode: string; store: string; measuredAt: string; commit: string; rows: Row[] };
  expect([report.mode, report.store]).toEqual(['quick', 'memory']);
  expect(report.commit).toMatch(/^[0-9a-f]{40}$/);
  expect(Date.now() - Date.parse(report.measuredAt)).toBeLessThan(60 * 60_000);
  expect(report.rows.map((r) => r.id)).toEqual(EXPECTED_ROWS);
  const lines = stdout.split('\n');
  for (const row of report.rows) {
    const seen = { id: row.id, svc: row.svc.value, baseline: row.baseline.value, baselineName: row.baseline.name };
    expect(seen).toEqual({ id: row.id, svc: expect.any(Number), baseline: expect.any(Number), baselineName: expect.any(String) });
    expect([row.id, row.svc.value > 0, row.baseline.value > 0]).toEqual([row.id, true, true]);
    expect(Math.abs(row.ratio - row.svc.value / row.baseline.value)).toBeLessThan(0.001);
    expect(['<=', '>=', '<']).toContain(row.target.op);
    expect(row.target.bound).toBeGreaterThan(0);
    expect(row.target.text).not.toBe('');
    expect({ id: row.id, pass: row.pass }).toEqual({ id: row.id, pass: meets(row.target, row.ratio) && !row.failures });
    expect({ id: row.id, binding: row.binding }).toEqual({ id: row.id, binding: row.id !== 'neighbour.p95' });
    for (const [side, latency] of [
      ['svc', WITH_LATENCY.includes(row.id) ? row.svc.latency : undefined],
      ['baseline', BASELINE_LATENCY.includes(row.id) ? row.baseline.latency : undefined],
    ] as const) {
      if (!latency) continue;
      expect({ id: row.id, side, ordered: 0 < latency.p50 && latency.p50 <= latency.p95 && latency.p95 <= latency.p99 }).toEqual({
        id: row.id,
        side,
        ordered: true,
      });
    }
    expect(row.svc.latency === undefined).toBe(!WITH_LATENCY.includes(row.id));
    expect(row.baseline.latency === undefined).toBe(!BASELINE_LATENCY.includes(row.id));

    // The printed table has the row with its ratio and its verdict.
    const line = lines.find((l) => l.startsWith(row.title));
    const verdict = row.binding ? (row.pass ? /PASS$/ : /MISS( \(\d+ failed\))?$/) : row.pass ? /aim met$/ : /aim missed$/;
    expect({ id: row.id, line }).toEqual({ id: row.id, line: expect.stringContaining(`${row.ratio.toFixed(2)}×`) });
    expect(line).toMatch(verdict);
  }
  const binding = report.rows.filter((r) => r.binding);
  expect(stdout).toContain(`${binding.filter((r) => r.pass).length} of ${binding.length} targets met`);
}, 300_000);
