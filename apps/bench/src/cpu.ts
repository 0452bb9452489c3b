import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { LoadResult } from './load';
import { round } from './stats';
import type { BenchStack } from './stack';

/** Kernel clock ticks per second, the unit of /proc's CPU times. */
const TICKS_PER_SEC = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  ppid: number;
  /** This process's own user + system time, ms. */
  ownMs: number;
  /** Its waited-for children's user + system time, ms (the kernel adds a child's time when it is reaped). */
  reapedMs: number;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone meanwhile
  }
  // The command name may contain spaces and parentheses: the fields start after its last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ms = (i: number) => (Number(f[i]) * 1000) / TICKS_PER_SEC;
  // Fields 4, 14-17 of proc(5), counted here from field 3 (state) as index 0.
  return { ppid: Number(f[1]), ownMs: ms(11) + ms(12), reapedMs: ms(13) + ms(14) };
}

/** Every process's stat now, and each one's children: one pass over /proc. */
function processTable(): { stats: Map<number, ProcStat>; children: Map<number, number[]> } {
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = readStat(pid);
    if (!s) continue;
    stats.set(pid, s);
    const siblings = children.get(s.ppid);
    if (siblings) siblings.push(pid);
    else children.set(s.ppid, [pid]);
  }
  return { stats, children };
}

/**
 * CPU time (user + system, ms, every thread) a process and all its descendants have used so far:
 * the live ones, and through their parents those already reaped, so a short-lived child (a
 * PostgreSQL backend of one connection) still counts. Linux /proc.
 */
export function treeCpuMs(root: number, table = processTable()): number {
  let total = 0;
  const stack = table.stats.has(root) ? [root] : [];
  while (stack.length) {
    const pid = stack.pop()!;
    const s = table.stats.get(pid)!;
    total += s.ownMs + s.reapedMs;
    stack.push(...(table.children.get(pid) ?? []));
  }
  return total;
}

/** CPU time per process (ms so far): each named process tree, and this process as `bench`. */
export function cpuSnapshot(pids: Record<string, number>): Record<string, number> {
  const own = process.cpuUsage();
  // One pass over /proc for every tree, so reading costs the bench's own figure as little as can be.
  const table = processTable();
  return {
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, treeCpuMs(pid, table)])),
    bench: (own.user + own.system) / 1000,
  };
}

/** What each process used between two snapshots, ms. */
export function cpuUsed(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, after[name] - (before[name] ?? 0)]));
}

/** The bench stack's processes the scenarios meter, each with its children (PostgreSQL's backends). */
export function stackProcesses(stack: BenchStack): Record<string, number> {
  return {
    gateway: stack.gateway.pid,
    worker: stack.worker.pid,
    'durable floor API': stack.durableFloor.pid,
    'bare route': stack.bare.pid,
    'floor worker': stack.floor.pid,
    PostgreSQL: stack.postgresPid,
    'Temporal server': stack.temporalPid,
  };
}

/** Each process's CPU per unit (ms): what every measurement used, over all their units. */
export function perUnit(measurements: Array<{ used: Record<string, number>; units: number }>): Record<string, number> {
  const units = measurements.reduce((n, m) => n + m.units, 0);
  const ms: Record<string, number> = {};
  for (const { used } of measurements) for (const [name, v] of Object.entries(used)) ms[name] = (ms[name] ?? 0) + v;
  return Object.fromEntries(Object.entries(ms).map(([name, v]) => [name, v / units]));
}

/** One measured load: every process's CPU over it (ms), what it completed, and its rate. */
export interface MeteredLoad {
  used: Record<string, number>;
  units: number;
  perSecond: number;
}

/**
 * Meters every process's CPU over each load a scenario measures: `metered(side, measure)` runs
 * the load and keeps its figures under its side, in order (`bySide`); `perUnitBySide()` gives
 * each side's CPU per completed unit (a run, a start), by process, over all its loads.
 */
export function cpuMeter(pids: Record<string, number>) {
  const bySide = new Map<string, MeteredLoad[]>();
  return {
    bySide,
    metered: async (side: string, measure: () => Promise<LoadResult>): Promise<LoadResult> => {
      const before = cpuSnapshot(pids);
      const r = await measure();
      const load = { used: cpuUsed(before, cpuSnapshot(pids)), units: r.ok, perSecond: r.perSecond };
      bySide.set(side, [...(bySide.get(side) ?? []), load]);
      return r;
    },
    perUnitBySide: (): Record<string, Record<string, number>> =>
      Object.fromEntries([...bySide].map(([side, loads]) => [side, perUnit(loads)])),
  };
}

/** All processes' CPU together, ms. */
export function totalMs(perProcess: Record<string, number>): number {
  return Object.values(perProcess).reduce((a, b) => a + b, 0);
}

/**
 * `33.8 ms (worker 13.9, Temporal server 10.7, …)`: the total, then each process that rounds to
 * more than zero at `digits` decimals (one unless told; three for the sub-millisecond `GET`), largest first.
 */
export function cpuText(perProcess: Record<string, number>, digits = 1): string {
  const parts = Object.entries(perProcess)
    .filter(([, ms]) => ms >= 0.5 * 10 ** -digits)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${round(ms, digits)}`);
  return `${round(totalMs(perProcess), digits)} ms (${parts.join(', ')})`;
}
