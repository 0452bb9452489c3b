/** Bounds of the expression sandbox (see pool.ts). */
export const SANDBOX_LIMITS = Object.freeze({
  threads: 2,
  /** V8 old-generation cap per thread. */
  heapMb: 128,
  /** Longest result (as JSON text) a thread may hand back. */
  maxResultChars: 4 * 1024 * 1024,
  /** Deepest result a thread may hand back: copying between threads is recursive in V8. */
  maxResultDepth: 200,
  /** A task that has waited this long for a free thread fails (the pool is saturated). */
  maxQueueWaitMs: 30_000,
});
