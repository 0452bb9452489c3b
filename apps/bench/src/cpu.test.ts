import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpuMeter, cpuSnapshot, cpuText, cpuUsed, treeCpuMs } from './cpu';
import type { LoadResult } from './load';

/** Busy for `ms` of wall time: about as much CPU. */
const BURN = (ms: number) => `const end = Date.now() + ${ms}; while (Date.now() < end) {}`;

/**
 * A process that burns ~300 ms itself, then runs a child that burns ~300 ms and is reaped, then
 * says so and waits (alive, so its /proc entry can be read) until its stdin closes.
 */
const PARENT = `
${BURN(300)}
require('node:child_process').spawnSync(process.execPath, ['-e', ${JSON.stringify(BURN(300))}]);
process.stdout.write('done\\n');
process.stdin.resume();
`;

async function startParent(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', PARENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  while (!out.includes('done')) await once(child.stdout!, 'data');
  return child;
}

describe('treeCpuMs', () => {
  let parent: ChildProcess;
  afterEach(async () => {
    parent.stdin!.end();
    if (parent.exitCode === null) await once(parent, 'exit');
  });

  it('counts a process and the children it has reaped', async () => {
    parent = await startParent();
    // Its own ~300 ms and its reaped child's ~300 ms (each also pays for starting Node).
    expect(treeCpuMs(parent.pid!)).toBeGreaterThan(500);
  });
});

it('treeCpuMs counts nothing for a process that is not there', () => {
  // Above Linux's highest possible pid (2^22).
  expect(treeCpuMs(2 ** 22 + 1)).toBe(0);
});

describe('cpuSnapshot and cpuUsed', () => {
  it('reads each named process and this one, and what each used in between', () => {
    const before = cpuSnapshot({ self: process.pid });
    const end = Date.now() + 200;
    while (Date.now() < end) {
      /* burn */
    }
    const used = cpuUsed(before, cpuSnapshot({ self: process.pid }));
    expect(Object.keys(used).sort()).toEqual(['bench', 'self']);
    expect(used.bench).toBeGreaterThan(150);
    // This process's tree is this process and the Jest workers it may have: at least as much.
    expect(used.self).toBeGreaterThanOrEqual(used.bench - 20);
  });
});

describe('cpuMeter', () => {
  /** A load that uses `ms` of this process's CPU and completes `ok` units at `perSecond`. */
  const burning = (ms: number, ok: number, perSecond: number) => async (): Promise<LoadResult> => {
    const start = process.cpuUsage();
    while ((process.cpuUsage(start).user + process.cpuUsage(start).system) / 1000 < ms) {
      /* burn */
    }
    return { latencies: [], ok, failed: 0, statuses: {}, elapsedMs: 1, perSecond };
  };

  it("keeps each side's loads in order and gives its CPU per unit over all of them", async () => {
    const meter = cpuMeter({});
    const r = await meter.metered('a', burning(100, 10, 7));
    await meter.metered('b', burning(50, 5, 3));
    await meter.metered('a', burning(100, 10, 9));
    expect(r.ok).toBe(10);
    expect([...meter.bySide.keys()]).toEqual(['a', 'b']);
    expect(meter.bySide.get('a')!.map((l) => [l.units, l.perSecond])).toEqual([
      [10, 7],
      [10, 9],
    ]);
    // At least 200 ms over 20 units on side a, 50 over 5 on b; the bench process only.
    const perUnit = meter.perUnitBySide();
    expect(Object.keys(perUnit.a)).toEqual(['bench']);
    expect(perUnit.a.bench).toBeGreaterThanOrEqual(10);
    expect(perUnit.b.bench).toBeGreaterThanOrEqual(10);
    expect(perUnit.a.bench).toBeLessThan(50);
  });
});

describe('cpuText', () => {
  const used = { gateway: 0.2514, PostgreSQL: 0.0612, bench: 0.0004, worker: 3.04 };

  it('gives the total, then each process that shows at one decimal, largest first', () => {
    expect(cpuText(used)).toBe('3.4 ms (worker 3, gateway 0.3, PostgreSQL 0.1)');
  });

  it('shows sub-millisecond figures at the decimals asked for', () => {
    expect(cpuText(used, 3)).toBe('3.353 ms (worker 3.04, gateway 0.251, PostgreSQL 0.061)');
  });
});
