import { formatReport, limitRow, ratioRow, summaryLine } from './report';
import type { BenchReport, Row } from './report';

const atLeast = { op: '>=', bound: 0.7, text: '≥ 0.70×' } as const;
const throughput = (value: number, floor?: number) =>
  ratioRow({
    id: 'finish.throughput',
    title: 'runs finished/s',
    unit: '/s',
    value,
    baseline: 100,
    baselineName: 'floor',
    target: atLeast,
    floor: floor === undefined ? undefined : { name: 'contract floor', value: floor },
  });

function printed(rows: Row[]): string {
  const report: BenchReport = {
    mode: 'full',
    temporalStore: 'memory',
    startedAt: '',
    finishedAt: '',
    durationSec: 1,
    machine: { hostname: 'h', cpus: 2, cpuModel: 'cpu', memoryGb: 8, node: 'v20', platform: 'linux-x64' },
    loadAverage: { before: 0, after: 0 },
    rows,
    details: [],
    scenarios: {},
  };
  return formatReport(report);
}

describe('a row with its hand-written floor', () => {
  it('holds the floor to the same target against the same baseline', () => {
    expect(throughput(68, 72)).toMatchObject({ ratio: 0.68, pass: false, floor: { name: 'contract floor', ratio: 0.72, pass: true } });
    expect(throughput(68, 66).floor).toMatchObject({ ratio: 0.66, pass: false });
    expect(throughput(75, 72)).toMatchObject({ pass: true, floor: { pass: true } });
    expect(throughput(75).floor).toBeUndefined();
  });

  it('says whether a miss is one the floor shares, or how far svc is below a floor that met', () => {
    const table = printed([throughput(68, 66), throughput(63, 72), throughput(75, 72)]).split('\n');
    const lines = table.filter((l) => l.startsWith('runs finished/s'));
    expect(lines[0]).toMatch(/0\.68×.*0\.66× MISS \(contract floor\)\s+MISS \(the floor too\)$/);
    expect(lines[1]).toMatch(/0\.63×.*0\.72× PASS \(contract floor\)\s+MISS \(svc 0\.88× the floor\)$/);
    expect(lines[2]).toMatch(/0\.75×.*0\.72× PASS \(contract floor\)\s+PASS$/);
  });

  it('counts, of the misses, those the floor beside them missed too', () => {
    const memory = limitRow({
      id: 'rss',
      title: 'peak RSS',
      unit: 'MB',
      value: 310,
      limit: 300,
      target: { op: '<', bound: 1, text: '< 300 MB' },
    });
    expect(summaryLine([throughput(68, 66), throughput(63, 72), throughput(75, 72), memory])).toBe(
      '1 of 4 targets met; of the 3 missed, 1 missed by the hand-written floor beside them too',
    );
    expect(summaryLine([throughput(75, 72)])).toBe('1 of 1 targets met');
    // A row with no floor (an absolute limit) shows none.
    expect(
      printed([memory])
        .split('\n')
        .find((l) => l.startsWith('peak RSS')),
    ).toMatch(/< 300 MB\s+—\s+MISS$/);
  });
});
