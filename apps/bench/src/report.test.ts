import { formatReport, makeRow, meets, summaryLine, verdict } from './report';
import type { BenchReport, Row } from './report';

const throughput = (svc: number, baseline: number) =>
  makeRow({
    id: 'finish.throughput',
    title: 'runs finished/s',
    unit: '/s',
    svc: { name: 'svc', value: svc },
    baseline: { name: 'floor', value: baseline },
    target: { op: '>=', bound: 0.7, text: '≥ 0.7×' },
  });

describe('a row', () => {
  it('is judged on its ratio to its baseline', () => {
    expect(throughput(70, 100)).toMatchObject({ ratio: 0.7, pass: true, binding: true });
    expect(throughput(69, 100)).toMatchObject({ ratio: 0.69, pass: false });
    expect(meets({ op: '<', bound: 1, text: '' }, 1)).toBe(false);
    expect(meets({ op: '<=', bound: 1.5, text: '' }, Number.NaN)).toBe(false);
  });

  it('rounds its figures before judging, so the verdict follows from what is written', () => {
    const row = makeRow({
      id: 'wait.p50',
      title: 'p50',
      unit: 'ms',
      svc: { name: 'svc', value: 30.004 },
      baseline: { name: 'floor', value: 20.001 },
      target: { op: '<=', bound: 1.5, text: '≤ 1.5×' },
    });
    expect(row).toMatchObject({ svc: { value: 30 }, baseline: { value: 20 }, ratio: 1.5, pass: true });
  });

  it('misses when a call failed on a row that allows none, whatever its ratio', () => {
    const base = {
      id: 'n',
      title: 'slowest',
      unit: 'ms',
      baseline: { name: 'limit', value: 5000 },
      target: { op: '<=', bound: 1, text: '≤ 5 s' },
    } as const;
    expect(makeRow({ ...base, svc: { name: 'V', value: 600 }, failures: 0 }).pass).toBe(true);
    const failed = makeRow({ ...base, svc: { name: 'V', value: 600 }, failures: 2 });
    expect([failed.pass, verdict(failed)]).toEqual([false, 'MISS (2 failed)']);
  });

  it('shows an aim with its verdict, but does not count it among the targets', () => {
    const aim = { ...throughput(50, 100), binding: false };
    expect(verdict(aim)).toBe('aim missed');
    expect(summaryLine([throughput(80, 100), throughput(50, 100), aim])).toBe('1 of 2 targets met; 0 of 1 aims met');
  });
});

it('prints each row with its figures, ratio, target and verdict', () => {
  const rows: Row[] = [throughput(60, 100)];
  const report: BenchReport = {
    mode: 'full',
    store: 'memory',
    measuredAt: '2000-01-01T00:00:00.000Z',
    commit: 'a'.repeat(40),
    dirty: false,
    durationSec: 1,
    machine: { cpus: 2, cpuModel: 'cpu', memoryGb: 8, node: 'v20' },
    loadAverage: { before: 0.5, after: 1 },
    rows,
  };
  const line = formatReport(report)
    .split('\n')
    .find((l) => l.startsWith('runs finished/s'));
  expect(line).toMatch(/^runs finished\/s\s+60 \/s\s+100 \/s floor\s+0\.60×\s+≥ 0\.7×\s+MISS$/);
});
