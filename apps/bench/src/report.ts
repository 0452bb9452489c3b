import type { Latency } from './stats';
import { round } from './stats';

/** A bound on a row's ratio. */
export interface Target {
  op: '<=' | '>=' | '<';
  bound: number;
  text: string;
}

/** One side of a row, svc's or its baseline's: the figure judged, and the latencies measured with it. */
export interface Side {
  name: string;
  value: number;
  latency?: Latency;
}

/**
 * One figure of svc against ONE baseline measured in the same run: `ratio` is svc's value over
 * the baseline's, and the target bounds it. An absolute limit is a baseline too (named `limit`).
 */
export interface Row {
  id: string;
  title: string;
  unit: 'ms' | '/s' | 'MB';
  svc: Side;
  baseline: Side;
  ratio: number;
  target: Target;
  /** False for an aim: shown with its verdict, not counted among the targets. */
  binding: boolean;
  /** Calls of svc's side that failed, on a row whose target allows none. */
  failures?: number;
  pass: boolean;
  /** Figures that explain the row (a rate reached, another tenant's load). */
  context?: Record<string, number>;
}

export interface BenchReport {
  mode: 'quick' | 'full';
  /** The Temporal dev server's store. */
  store: 'memory' | 'file';
  measuredAt: string;
  /** The commit measured, and whether tracked files differed from it. */
  commit: string;
  dirty: boolean;
  durationSec: number;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  /** 1-minute load average before and after: other work on the machine moves every figure. */
  loadAverage: { before: number; after: number };
  rows: Row[];
}

export function meets(t: Target, ratio: number): boolean {
  if (!Number.isFinite(ratio)) return false;
  return t.op === '<=' ? ratio <= t.bound : t.op === '>=' ? ratio >= t.bound : ratio < t.bound;
}

/** A row from its two sides: figures rounded first, so the verdict follows from what is written. */
export function makeRow(r: Omit<Row, 'ratio' | 'pass' | 'binding'> & { binding?: boolean }): Row {
  const svc = { ...r.svc, value: round(r.svc.value) };
  const baseline = { ...r.baseline, value: round(r.baseline.value) };
  const ratio = round(svc.value / baseline.value, 3);
  return { ...r, svc, baseline, ratio, binding: r.binding ?? true, pass: meets(r.target, ratio) && !r.failures };
}

export function verdict(row: Row): string {
  if (!row.binding) return row.pass ? 'aim met' : 'aim missed';
  return row.pass ? 'PASS' : row.failures ? `MISS (${row.failures} failed)` : 'MISS';
}

/** `5 of 8 targets met; 1 of 1 aims met` */
export function summaryLine(rows: Row[]): string {
  const count = (rs: Row[]) => `${rs.filter((r) => r.pass).length} of ${rs.length}`;
  const aims = rows.filter((r) => !r.binding);
  return `${count(rows.filter((r) => r.binding))} targets met${aims.length ? `; ${count(aims)} aims met` : ''}`;
}

const figure = (v: number, unit: Row['unit']) => `${v.toFixed(unit === 'ms' && v < 100 ? 1 : 0)} ${unit}`;
const percentiles = ({ latency: l }: Side) => (l ? [l.p50, l.p95, l.p99].map((v) => v.toFixed(1)).join(' / ') : '—');

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export function formatReport(r: BenchReport): string {
  const m = r.machine;
  return [
    `svc bench (${r.mode}, Temporal store: ${r.store}) at ${r.commit.slice(0, 12)}${r.dirty ? ' with local changes' : ''}, ${r.measuredAt}`,
    `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}; ${r.durationSec} s; load average ${r.loadAverage.before} before, ${r.loadAverage.after} after`,
    '',
    table([
      ['row', 'svc', 'baseline', 'ratio', 'target', 'verdict'],
      ...r.rows.map((row) => {
        const baseline = `${figure(row.baseline.value, row.unit)} ${row.baseline.name}`;
        return [row.title, figure(row.svc.value, row.unit), baseline, `${row.ratio.toFixed(2)}×`, row.target.text, verdict(row)];
      }),
    ]),
    '',
    summaryLine(r.rows),
    '',
    table([
      ['latency (ms)', 'svc p50 / p95 / p99', 'baseline p50 / p95 / p99'],
      ...r.rows.filter((row) => row.svc.latency).map((row) => [row.id, percentiles(row.svc), percentiles(row.baseline)]),
    ]),
    '',
    ...r.rows
      .filter((row) => row.context)
      .map(
        (row) =>
          `${row.id}: ${Object.entries(row.context!)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      ),
    '',
  ].join('\n');
}
