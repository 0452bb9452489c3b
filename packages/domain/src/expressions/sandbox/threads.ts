import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import { FairQueue } from './fairQueue';

/**
 * A minimal thread pool whose threads can be killed mid-task. (piscina was tried: after it
 * terminated a stuck thread, tasks queued meanwhile could wait forever.) Each thread runs
 * one task at a time; a thread that dies or is killed is replaced on the next demand.
 * Waiting tasks queue per tenant and are taken in turn (FairQueue), and no tenant runs on every
 * thread at once: with two or more, one is always left to the others, so their next task never
 * waits for a long one of another tenant to end. A tenant whose task ran to its deadline waits as
 * long again before its next one starts: a flood of such tasks gets at most half a thread.
 */

/** `busy`: the tenant's line was full; `queue`: no thread took the task in time. Both are capacity, not the task's fault. */
export type TaskOutcome =
  { ok: true; value: unknown } | { ok: false; reason: 'deadline' | 'queue' | 'busy' | 'crashed' | 'unsendable'; error?: unknown };

interface Job {
  tenant: string;
  payload: unknown;
  deadlineMs: number;
  settle: (o: TaskOutcome) => void;
  queueTimer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  /** Set once the thread has loaded its code, so load time never counts against a deadline. */
  ready: boolean;
  job?: Job;
  deadline?: NodeJS.Timeout;
}

export interface ThreadPoolOptions {
  filename: string;
  size: number;
  resourceLimits: ResourceLimits;
  /** A task no thread took within this fails with `queue`. */
  maxQueueWaitMs: number;
  /** Tasks one tenant may have waiting; one more fails at once with `busy`. */
  maxQueuedPerTenant: number;
}

export class ThreadPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: FairQueue<Job>;
  /** Tasks running now, by tenant. */
  private readonly running = new Map<string, number>();
  private readonly maxRunningPerTenant: number;
  /** Tenants whose last task ran to its deadline, and when they may start another. */
  private readonly restingUntil = new Map<string, number>();
  private readonly mayRun = (tenant: string): boolean =>
    (this.running.get(tenant) ?? 0) < this.maxRunningPerTenant && (this.restingUntil.get(tenant) ?? 0) <= Date.now();

  constructor(private readonly opts: ThreadPoolOptions) {
    this.queue = new FairQueue(opts.maxQueuedPerTenant);
    this.maxRunningPerTenant = Math.max(1, opts.size - 1);
  }

  /** Runs a payload for `tenant`; `deadlineMs` counts from the moment a thread takes it. */
  run(tenant: string, payload: unknown, deadlineMs: number): Promise<TaskOutcome> {
    return new Promise((resolve) => {
      const job: Job = {
        tenant,
        payload,
        deadlineMs,
        settle: resolve,
        queueTimer: setTimeout(() => {
          if (this.queue.remove(tenant, job)) resolve({ ok: false, reason: 'queue' });
        }, this.opts.maxQueueWaitMs),
      };
      if (!this.queue.push(tenant, job)) {
        clearTimeout(job.queueTimer);
        return resolve({ ok: false, reason: 'busy' });
      }
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.next(this.mayRun) !== undefined) {
      const slot = [...this.slots].find((s) => s.ready && !s.job);
      if (!slot) {
        if (this.slots.size < this.opts.size) this.spawn();
        return;
      }
      const job = this.queue.shift(this.mayRun) as Job;
      clearTimeout(job.queueTimer);
      try {
        slot.worker.postMessage(job.payload);
      } catch (error) {
        // V8 could not copy the payload (nested deeper than its serializer's stack allows):
        // this task fails, the thread was never given it and stays free.
        job.settle({ ok: false, reason: 'unsendable', error });
        continue;
      }
      slot.job = job;
      this.running.set(job.tenant, (this.running.get(job.tenant) ?? 0) + 1);
      slot.deadline = setTimeout(() => {
        this.rest(job.tenant, job.deadlineMs);
        this.finish(slot, { ok: false, reason: 'deadline' }, true);
      }, job.deadlineMs);
    }
  }

  private spawn(): void {
    // No inherited `-r` preloads or flags: the thread needs only its own file.
    const worker = new Worker(this.opts.filename, { resourceLimits: this.opts.resourceLimits, execArgv: [] });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (value: unknown) => {
      if (slot.ready) return this.finish(slot, { ok: true, value }, false);
      slot.ready = true;
      this.dispatch();
    });
    worker.on('error', (error) => this.finish(slot, { ok: false, reason: 'crashed', error }, true));
    worker.on('exit', () => this.finish(slot, { ok: false, reason: 'crashed' }, true));
    // After the listeners (adding a 'message' listener refs the thread again): an idle pool never
    // keeps a process alive, while a task's deadline timer keeps it alive until the task settles.
    worker.unref();
    this.slots.add(slot);
  }

  /** Settles the slot's job; a killed or dead thread leaves the pool. */
  private finish(slot: Slot, outcome: TaskOutcome, retire: boolean): void {
    const job = slot.job;
    slot.job = undefined;
    clearTimeout(slot.deadline);
    if (job) {
      const left = (this.running.get(job.tenant) ?? 1) - 1;
      if (left > 0) this.running.set(job.tenant, left);
      else this.running.delete(job.tenant);
    }
    if (retire && this.slots.delete(slot)) void slot.worker.terminate();
    job?.settle(outcome);
    this.dispatch();
  }

  /** Keeps `tenant`'s next task waiting for `ms`, then looks at the line again. */
  private rest(tenant: string, ms: number): void {
    this.restingUntil.set(tenant, Date.now() + ms);
    setTimeout(() => {
      if ((this.restingUntil.get(tenant) ?? 0) <= Date.now()) this.restingUntil.delete(tenant);
      this.dispatch();
    }, ms).unref();
  }

  async close(): Promise<void> {
    const slots = [...this.slots];
    this.slots.clear();
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
