import type { ResourceLimits } from 'node:worker_threads';
import { validateRunInput } from '../../definitions/inputSchema';
import { DEFAULT_EXPRESSION_LIMITS, evaluateExpression } from '../evaluate';
import { closeSandbox, configureSandbox, SANDBOX_LIMITS, SandboxBusyError } from './pool';

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
    // Each from a workspace of its own: one workspace never runs on every thread at once.
    const values = await Promise.all(
      Array.from({ length: n }, (_, i) => evaluateExpression(`input.n + ${i}`, { ...ctx, workspaceId: `ws_${i}` })),
    );
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

describe('sandbox fairness', () => {
  // Tens to hundreds of milliseconds of work in a thread, well inside the expression time limit.
  const slow = '$count([1..10].($sum([1..90000])))';
  const ctxOf = (workspaceId: string) => ({ ...ctx, workspaceId });

  it("serves another workspace's task before the rest of one workspace's backlog", async () => {
    configureSandbox({ threads: 1 });
    const finished: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => finished.push(name));
    const backlog = Array.from({ length: 6 }, (_, i) => track(`a${i}`, evaluateExpression(slow, ctxOf('ws_a'))));
    const other = track('b', evaluateExpression(slow, ctxOf('ws_b')));
    await Promise.all([...backlog, other]);
    // The thread takes a0, then b's turn comes before a1.
    expect(finished.indexOf('b')).toBeLessThanOrEqual(2);
    expect(finished.filter((n) => n.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('leaves a thread to other workspaces while one floods', async () => {
    configureSandbox({ threads: 2 });
    // Both threads started (by two workspaces), so no thread's start time is measured below.
    await Promise.all([evaluateExpression('1', ctxOf('ws_x')), evaluateExpression('2', ctxOf('ws_y'))]);
    const finished: string[] = [];
    // Seconds of work each (a limit raised to match): far longer than a quick task's round trip on a busy machine.
    const long = { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 30_000 };
    const backlog = Array.from({ length: 2 }, (_, i) =>
      evaluateExpression('$count([1..400].($sum([1..90000])))', ctxOf('ws_a'), long).then(() => finished.push(`a${i}`)),
    );
    // Started after the flood: a quick task of another workspace is not held behind a slow one.
    const quick = evaluateExpression('input.n', ctxOf('ws_b')).then(() => finished.push('b'));
    await Promise.all([...backlog, quick]);
    expect(finished[0]).toBe('b');
  });

  it('makes a workspace whose task ran to its deadline wait as long again, while another runs at once', async () => {
    configureSandbox({ threads: 2 });
    await Promise.all([evaluateExpression('1', ctxOf('ws_x')), evaluateExpression('2', ctxOf('ws_y'))]);
    // uniqueItems over objects compares every pair, in one call nothing interrupts but the thread's deadline.
    const schema = { type: 'object', properties: { items: { type: 'array', uniqueItems: true } } };
    const items = Array.from({ length: 12_000 }, (_, i) => ({ a: i, b: 'x'.repeat(20), c: [1, 2, { d: i }] }));
    const t0 = Date.now();
    await expect(validateRunInput(schema, { items }, 'ws_a')).rejects.toMatchObject({ code: 'validation_failed' });
    const killed = Date.now();
    const ran = killed - t0;
    const [next, other] = await Promise.all([
      evaluateExpression('1', ctxOf('ws_a')).then(() => Date.now()),
      evaluateExpression('1', ctxOf('ws_b')).then(() => Date.now()),
    ]);
    expect(other - killed).toBeLessThan(ran / 2);
    expect(next - killed).toBeGreaterThanOrEqual(ran * 0.8);
  });

  it("refuses a workspace's task past its bound as capacity, while another workspace's runs", async () => {
    configureSandbox({ threads: 1 });
    const flood = Array.from({ length: SANDBOX_LIMITS.maxQueuedPerTenant + 4 }, () =>
      evaluateExpression(slow, ctxOf('ws_a')).then(
        () => 'ok',
        (err: unknown) => (err instanceof SandboxBusyError ? 'busy' : `failed: ${String(err)}`),
      ),
    );
    const other = evaluateExpression('input.n + 1', ctxOf('ws_b'));
    await expect(other).resolves.toBe(2);
    const outcomes = await Promise.all(flood);
    // One task runs at once and the bound waits; the rest are refused, and nothing else fails.
    expect(outcomes.filter((o) => o === 'busy').length).toBeGreaterThanOrEqual(3);
    expect(outcomes.filter((o) => o !== 'busy' && o !== 'ok')).toEqual([]);
  });
});
