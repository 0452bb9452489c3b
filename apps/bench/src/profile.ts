/** How long and how hard each scenario runs: `--quick` (a few minutes, for the test) or full. */
export interface Profile {
  name: 'quick' | 'full';
  /** Measured rounds per comparison; rounds alternate which side goes first. */
  rounds: number;
  /** Requests per side before measuring (JIT, connection pools, caches). */
  warmup: number;
  /** Sequential (one at a time) starts per side per round: the latency figures. */
  startLatencyAmount: number;
  /** Seconds of closed-loop starts per side per round: the throughput figure. */
  startThroughputSec: number;
  /** Concurrent callers of the throughput and read loads. */
  connections: number;
  /** Sequential (one at a time) whole runs per side per round: the wait latency figures. */
  waitAmount: number;
  /** Concurrent callers, and seconds per side per round, of the runs-finished-per-second figure. */
  finishCallers: number;
  finishSec: number;
  /** Seconds of GET load per side per round. */
  readSec: number;
  /**
   * Seconds of run starts at each webhook event rate: half the floor's runs finished per
   * second (the target's), and this low rate, the delivery latency of a system that keeps up.
   */
  webhookSec: number;
  webhookLowRate: number;
  /** The longest wait for the first webhook event of a phase (a bench that gets none fails). */
  firstEventTimeoutMs: number;
  /**
   * Whether the runs a measurement leaves unfinished are terminated before the next one (full
   * mode: every measurement starts on an idle system), and how long they may go on first.
   * Quick mode leaves them running: it checks that every figure is produced, not the figures.
   */
  clearBacklogs: boolean;
  backlogGraceMs: number;
  /** After the last webhook-generating start: how long events are still collected. */
  webhookCollectSec: number;
  /** The whole bench gives up (and cleans up) after this long. */
  deadlineMs: number;
}

export const PROFILES: Record<Profile['name'], Profile> = {
  quick: {
    name: 'quick',
    rounds: 1,
    warmup: 5,
    startLatencyAmount: 10,
    startThroughputSec: 1,
    connections: 8,
    waitAmount: 10,
    finishCallers: 16,
    finishSec: 2,
    readSec: 1,
    webhookSec: 2,
    webhookLowRate: 5,
    firstEventTimeoutMs: 30_000,
    clearBacklogs: false,
    backlogGraceMs: 0,
    webhookCollectSec: 2,
    deadlineMs: 10 * 60_000,
  },
  full: {
    name: 'full',
    rounds: 2,
    warmup: 100,
    startLatencyAmount: 200,
    startThroughputSec: 15,
    connections: 8,
    waitAmount: 100,
    finishCallers: 16,
    finishSec: 15,
    readSec: 15,
    webhookSec: 15,
    webhookLowRate: 5,
    firstEventTimeoutMs: 300_000,
    clearBacklogs: true,
    backlogGraceMs: 10_000,
    webhookCollectSec: 30,
    deadlineMs: 80 * 60_000,
  },
};
