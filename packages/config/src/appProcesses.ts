/** WebAssembly (Prisma's query compiler) on V8's baseline compiler only: TurboFan's tier-up costs memory, not speed. */
const WASM_BASELINE_ONLY = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] as const;

/**
 * How each app process is started, the one place these defaults live. `npm start`, the bench,
 * the tests and `npm run start:*` read them; the Dockerfile and the Compose file spell them out,
 * and test/compose.test.ts holds those equal to these.
 *
 * - Node flags: V8 reads them only when the process starts, so an app cannot set them itself
 *   (`GATEWAY_NODE_FLAGS` / `WORKER_NODE_FLAGS` replace them). A small semi-space and an old
 *   generation allowed to grow to 1.3× its live data between full collections bound each
 *   isolate's heap; the worker, with five isolates, gets a larger nursery for less GC work.
 * - MALLOC_ARENA_MAX: glibc otherwise gives each allocating thread an arena of its own (up to 8
 *   per core). The gateway allocates almost only on its main thread; the worker's threads share two.
 */
export const APP_PROCESSES = Object.freeze({
  gateway: Object.freeze({
    entry: 'apps/gateway/dist/main.js',
    nodeFlags: Object.freeze([...WASM_BASELINE_ONLY, '--max-semi-space-size=2', '--heap-growing-percent=30']),
    env: Object.freeze({ MALLOC_ARENA_MAX: '1' }),
  }),
  worker: Object.freeze({
    entry: 'apps/worker/dist/main.js',
    nodeFlags: Object.freeze([...WASM_BASELINE_ONLY, '--max-semi-space-size=4', '--heap-growing-percent=30']),
    env: Object.freeze({ MALLOC_ARENA_MAX: '2' }),
  }),
});

export type AppName = keyof typeof APP_PROCESSES;
