/** Bounds of the expression sandbox (see pool.ts). */
export const SANDBOX_LIMITS = Object.freeze({
  /** Threads per process unless configureSandbox says otherwise (the gateway and the worker do). */
  threads: 2,
  /** V8 old-generation cap per thread. */
  heapMb: 128,
  /**
   * V8 young-generation size per thread. Evaluations allocate little, so a small nursery costs
   * no speed and keeps each thread's memory small.
   */
  youngGenerationMb: 4,
  /** Longest result (as JSON text) a thread may hand back. */
  maxResultChars: 4 * 1024 * 1024,
  /** Deepest result a thread may hand back: copying between threads is recursive in V8. */
  maxResultDepth: 200,
  /**
   * A task that waited this long for a thread fails as capacity (SandboxBusyError); below the
   * 30 s bound of the local activities that evaluate steps, so their retry takes over.
   */
  maxQueueWaitMs: 10_000,
  /**
   * Tasks one workspace may have waiting in one process (above the largest plan's concurrency); one
   * more is refused as capacity at once.
   */
  maxQueuedPerTenant: 64,
});
