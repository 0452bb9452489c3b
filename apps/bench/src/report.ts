import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { round } from './stats';

/**
 * One figure of the service beside its target: `ratio` is the service's figure over its
 * baseline measured in the same run (or over the absolute limit, where the target is one),
 * and the target is a bound on that ratio.
 */
export interface Row {
  id: string;
  title: string;
  unit: string;
  /** The service's figure. */
  value: number;
  /** The baseline's figure (null where the target is an absolute limit). */
  baseline: number | null;
  baselineName: string;
  ratio: number;
  target: { op: '<=' | '>=' | '<'; bound: number; text: string };
  pass: boolean;
  /** Why a row missed although its ratio alone would pass (e.g. the load was not reached). */
  note?: string;
  /** The row's hand-written floor, where it has one. */
  floor?: RowFloor;
}

/**
 * The least code that does a row's work, written by hand (floor/), measured in the same rounds
 * as the service and held to the same target against the same baseline. A miss where the floor
 * misses too is at the physical limit of the row's work on this machine.
 */
export interface RowFloor {
  name: string;
  value: number;
  ratio: number;
  pass: boolean;
}

export function ratioRow(r: Omit<Row, 'ratio' | 'pass' | 'floor'> & { floor?: { name: string; value: number } }): Row {
  const { floor, ...rest } = r;
  const ratio = r.baseline === null ? Number.NaN : r.value / r.baseline;
  const row = finishRow({ ...rest, ratio });
  if (!floor || r.baseline === null) return row;
  const floorRatio = floor.value / r.baseline;
  return { ...row, floor: { ...floor, ratio: floorRatio, pass: meets(r.target, floorRatio) } };
}

function meets({ op, bound }: Row['target'], ratio: number): boolean {
  return Number.isFinite(ratio) && (op === '<=' ? ratio <= bound : op === '>=' ? ratio >= bound : ratio < bound);
}

/** A figure against an absolute limit: ratio = value / limit. */
export function limitRow(r: Omit<Row, 'ratio' | 'pass' | 'baseline' | 'baselineName'> & { limit: number }): Row {
  const { limit, ...rest } = r;
  return finishRow({ ...rest, baseline: null, baselineName: `limit ${limit} ${r.unit}`, ratio: r.value / limit });
}

function finishRow(r: Omit<Row, 'pass'>): Row {
  return { ...r, pass: meets(r.target, r.ratio) };
}

/** A measured figure shown for context, with no target. */
export interface Detail {
  title: string;
  value: string;
}

export interface BenchReport {
  mode: string;
  /** The Temporal dev server's store (stack.ts BenchStackOptions.temporalStore). */
  temporalStore: string;
  startedAt: string;
  finishedAt: string;
  durationSec: number;
  machine: { hostname: string; cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  /** 1-minute load average before the bench started anything, and at its end: other work on the machine skews every figure. */
  loadAverage: { before: number; after: number };
  rows: Row[];
  details: Detail[];
  /** Every raw figure per scenario (latency summaries, counts, rates). */
  scenarios: Record<string, unknown>;
}

export function machineInfo(): BenchReport['machine'] {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

function fmt(v: number | null, unit: string): string {
  if (v === null) return '—';
  if (!Number.isFinite(v)) return String(v);
  const digits = unit === 'ms' ? (v < 10 ? 2 : 1) : v < 10 ? 2 : 0;
  return `${v.toFixed(digits)} ${unit}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** `0.72× PASS (contract floor)`: the floor's ratio and its own verdict. */
function floorText(f: RowFloor | undefined): string {
  return f ? `${f.ratio.toFixed(2)}× ${f.pass ? 'PASS' : 'MISS'} (${f.name})` : '—';
}

/** `MISS (the floor too)` or `MISS (svc 0.80× the floor)`: a miss says whether the hand-written floor beside it missed as well. */
function verdict(row: Row): string {
  if (row.pass) return 'PASS';
  const why = [row.note, row.floor && (row.floor.pass ? `svc ${(row.ratio / row.floor.ratio).toFixed(2)}× the floor` : 'the floor too')];
  const said = why.filter(Boolean).join('; ');
  return said ? `MISS (${said})` : 'MISS';
}

/** `3 of 7 targets met`, and of the misses how many the hand-written floor beside them missed too. */
export function summaryLine(rows: Row[]): string {
  const passed = rows.filter((x) => x.pass).length;
  const missed = rows.filter((x) => !x.pass);
  const atFloor = missed.filter((x) => x.floor && !x.floor.pass).length;
  const line = `${passed} of ${rows.length} targets met`;
  return missed.length ? `${line}; of the ${missed.length} missed, ${atFloor} missed by the hand-written floor beside them too` : line;
}

export function formatReport(r: BenchReport): string {
  const rows = r.rows.map((row) => [
    row.title,
    fmt(row.value, row.unit),
    row.baseline === null ? row.baselineName : `${fmt(row.baseline, row.unit)} (${row.baselineName})`,
    `${row.ratio.toFixed(2)}×`,
    row.target.text,
    floorText(row.floor),
    verdict(row),
  ]);
  return [
    `svc bench (${r.mode}, Temporal store: ${r.temporalStore}) — ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGb} GB, Node ${r.machine.node}, ${r.durationSec} s, ` +
      `load average ${r.loadAverage.before.toFixed(2)} before / ${r.loadAverage.after.toFixed(2)} after`,
    '',
    table(['figure', 'svc', 'baseline', 'ratio', 'target', 'hand-written floor', ''], rows),
    '',
    summaryLine(r.rows),
    '',
    table(
      ['detail', 'value'],
      r.details.map((d) => [d.title, d.value]),
    ),
    '',
  ].join('\n');
}

export function writeReport(file: string, r: BenchReport): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
}
