import { readFileSync } from 'node:fs';

/** Resident memory of a process, read from outside it (Linux /proc). */
export interface MemoryReading {
  /** Current resident set size (VmRSS), MB. */
  rssMb: number;
  /** Peak resident set size over the process's life so far (VmHWM), MB. */
  peakMb: number;
}

function kbField(status: string, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) : Number.NaN;
}

export function readMemory(pid: number): MemoryReading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMb: kbField(status, 'VmRSS') / 1024, peakMb: kbField(status, 'VmHWM') / 1024 };
}

/**
 * Samples the RSS of some processes every `everyMs` and keeps each one's maximum per named
 * phase, so the report can say how much memory a given load took (VmHWM covers the whole life).
 */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  private phase = 'setup';
  /** phase → process name → max RSS MB */
  readonly peaks: Record<string, Record<string, number>> = {};

  constructor(
    private readonly pids: Record<string, number>,
    everyMs = 200,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  setPhase(name: string): void {
    this.sample();
    this.phase = name;
    this.sample();
  }

  sample(): void {
    const row = (this.peaks[this.phase] ??= {});
    for (const [name, pid] of Object.entries(this.pids)) {
      try {
        const { rssMb } = readMemory(pid);
        row[name] = Math.max(row[name] ?? 0, rssMb);
      } catch {
        /* the process is gone; the caller notices on its own */
      }
    }
  }

  /** Lifetime peaks (VmHWM) of every process now. */
  lifetimePeaks(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) out[name] = readMemory(pid).peakMb;
    return out;
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}
