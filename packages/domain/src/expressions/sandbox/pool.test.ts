import type { ResourceLimits } from 'node:worker_threads';
import { evaluateExpression } from '../evaluate';
import { closeSandbox, configureSandbox, SANDBOX_LIMITS } from './pool';

// The module object itself (an `import * as` namespace is read-only): the pool's `new Worker` goes through it.
const workerThreads = jest.requireActual<typeof import('node:worker_threads')>('node:worker_threads');
const RealWorker = workerThreads.Worker;
const ctx = { input: { n: 1 }, steps: {}, secrets: {} };

/** Runs `n` evaluations at once and returns the resource limits of every thread started meanwhile. */
async function threadsStartedFor(n: number): Promise<ResourceLimits[]> {
  const started: ResourceLimits[] = [];
  const spy = jest.spyOn(workerThreads, 'Worker').mockImplementation(function (file, options) {
    started.push(options?.resourceLimits ?? {});
    return new RealWorker(file, options);
  });
  try {
    const values = await Promise.all(Array.from({ length: n }, (_, i) => evaluateExpression(`input.n + ${i}`, ctx)));
    expect(values).toEqual(Array.from({ length: n }, (_, i) => 1 + i));
  } finally {
    spy.mockRestore();
  }
  return started;
}

afterEach(closeSandbox);

describe('sandbox size', () => {
  it('starts at most the configured number of threads, each with the small young generation', async () => {
    configureSandbox({ threads: 1 });
    const one = await threadsStartedFor(4);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({
      maxYoungGenerationSizeMb: SANDBOX_LIMITS.youngGenerationMb,
      maxOldGenerationSizeMb: SANDBOX_LIMITS.heapMb,
    });

    await closeSandbox();
    configureSandbox({ threads: 3 });
    expect(await threadsStartedFor(6)).toHaveLength(3);
  });

  it('refuses a new size once its threads exist', async () => {
    configureSandbox({ threads: 2 });
    await evaluateExpression('1', ctx);
    expect(() => configureSandbox({ threads: 1 })).toThrow('before the sandbox is first used');
  });
});
