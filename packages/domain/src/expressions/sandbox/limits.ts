/** Bounds of the expression sandbox (see pool.ts). */
export const SANDBOX_LIMITS = Object.freeze({
  /** Threads per process unless configureSandbox says otherwise (the gateway and the worker do). */
  threads: 2,
  /** V8 old-generation cap per thread. */
  heapMb: 128,
  /**
   * V8 young-generation size per thread. Evaluations allocate little, so a small nursery costs
   * no measurable speed, and each thread stays ~10 MB smaller than with 16 MB (README "Performance").
   */
  youngGenerationMb: 4,
  /** Longest result (as JSON text) a thread may hand back. */
  maxResultChars: 4 * 1024 * 1024,
  /** Deepest result a thread may hand back: copying between threads is recursive in V8. */
  maxResultDepth: 200,
  /** A task that has waited this long for a free thread fails (the pool is saturated). */
  maxQueueWaitMs: 30_000,
});
