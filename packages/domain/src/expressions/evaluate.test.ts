import type { ExpressionContext } from '../definitions/types';
import {
  ExpressionError,
  checkExpressionSyntax,
  clearExpressionCache,
  compileExpression,
  evaluateExpression,
  expressionCacheSize,
} from './evaluate';

async function errorOf(p: Promise<unknown>): Promise<ExpressionError> {
  try {
    await p;
  } catch (e) {
    return e as ExpressionError;
  }
  throw new Error('expected the evaluation to fail');
}

const ctx: ExpressionContext = {
  input: { name: 'Ada', count: 3, items: [{ price: 2 }, { price: 5 }], notify: true },
  steps: {
    shape: { output: { greeting: 'hello Ada', list: [1, 2, 3] }, status: 'succeeded' },
    skipped: { output: null, status: 'skipped' },
  },
  secrets: { TOKEN: 's3cr3t-token' },
};

describe('evaluateExpression', () => {
  test('context is the input document: input, steps, secrets', async () => {
    expect(await evaluateExpression('input.name', ctx)).toBe('Ada');
    expect(await evaluateExpression('steps.shape.output.greeting', ctx)).toBe('hello Ada');
    expect(await evaluateExpression('steps.shape.status', ctx)).toBe('succeeded');
    expect(await evaluateExpression('secrets.TOKEN', ctx)).toBe('s3cr3t-token');
    expect(await evaluateExpression("{ 'greeting': 'hello ' & input.name }", ctx)).toEqual({ greeting: 'hello Ada' });
    expect(await evaluateExpression('$sum(input.items.price)', ctx)).toBe(7);
    expect(await evaluateExpression('input.notify = true', ctx)).toBe(true);
  });

  test('$input / $steps / $secrets variables work inside nested paths', async () => {
    expect(await evaluateExpression('input.items.(price * $input.count)', ctx)).toEqual([6, 15]);
    expect(await evaluateExpression('steps.shape.output.list.($ + $count($steps.shape.output.list))', ctx)).toEqual([4, 5, 6]);
  });

  test('undefined (no match) is normalized to null', async () => {
    expect(await evaluateExpression('input.missing', ctx)).toBeNull();
    expect(await evaluateExpression('steps.nope.output', ctx)).toBeNull();
    expect(await evaluateExpression('input.items[price > 100]', ctx)).toBeNull();
  });

  test('results are plain JSON: sequences become arrays, undefined fields dropped', async () => {
    const seq = await evaluateExpression('input.items.price', ctx);
    expect(seq).toEqual([2, 5]);
    expect(Array.isArray(seq)).toBe(true);
    expect(Object.keys(seq as object)).toEqual(['0', '1']); // no "sequence" flag leaking
    expect(await evaluateExpression('{ "a": input.missing, "b": 1 }', ctx)).toEqual({ b: 1 });
    expect(JSON.stringify(await evaluateExpression('[input.items.price]', ctx))).toBe('[2,5]');
  });

  test('results do not alias the context (mutating them is safe)', async () => {
    const out = (await evaluateExpression('input.items[0]', ctx)) as { price: number };
    out.price = 999;
    expect((ctx.input as { items: { price: number }[] }).items[0].price).toBe(2);
  });

  test('a missing or partial context still works', async () => {
    expect(await evaluateExpression('input', { input: undefined, steps: {}, secrets: {} } as ExpressionContext)).toBeNull();
    expect(await evaluateExpression('1 + 1', {} as ExpressionContext)).toBe(2);
  });

  test('arrays as input are not unwrapped', async () => {
    expect(await evaluateExpression('$count(input)', { input: [1, 2, 3], steps: {}, secrets: {} })).toBe(3);
    expect(await evaluateExpression('input', { input: [1], steps: {}, secrets: {} })).toEqual([1]);
  });

  test('a function result is an error, not a value', async () => {
    await expect(evaluateExpression('function($x) { $x }', ctx)).rejects.toThrow(/function/);
    await expect(evaluateExpression('{ "f": function($x) { $x } }', ctx)).rejects.toThrow(/function/);
  });

  test('__proto__ keys built by an expression do not pollute prototypes', async () => {
    const out = (await evaluateExpression('{ "__proto__": { "polluted": true }, "a": 1 }', ctx)) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The result crosses from a sandbox thread, so its prototype is a plain Object.prototype
    // of this process's main realm (not necessarily the test runner's).
    expect(Object.getPrototypeOf(out).constructor.name).toBe('Object');
    expect(Object.getPrototypeOf(Object.getPrototypeOf(out))).toBeNull();
    expect(Object.getPrototypeOf(out).polluted).toBeUndefined();
    expect(out.a).toBe(1);
  });

  describe('errors', () => {
    test('syntax errors → ExpressionError with code and position, no JS stack', async () => {
      const err = await errorOf(evaluateExpression('input.name +', ctx));
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('S0207');
      expect(typeof err.position).toBe('number');
      expect(err.message).toMatch(/position \d+/);
      expect(err.stack).toBe(`ExpressionError: ${err.message}`);
      expect(err.message).not.toMatch(/\n\s+at /);
    });

    test('evaluation errors → ExpressionError', async () => {
      const err = await errorOf(evaluateExpression('input.name + 1', ctx));
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('T2001');
      expect(err.position).toBeGreaterThan(0);
      await expect(evaluateExpression('$undefinedFn()', ctx)).rejects.toBeInstanceOf(ExpressionError);
      await expect(evaluateExpression('$error("custom failure")', ctx)).rejects.toThrow('custom failure');
    });

    test('empty, non-string and huge expressions are refused', async () => {
      await expect(evaluateExpression('', ctx)).rejects.toThrow('Expression is empty');
      await expect(evaluateExpression('   ', ctx)).rejects.toThrow('Expression is empty');
      await expect(evaluateExpression(42 as unknown as string, ctx)).rejects.toThrow('must be a string');
      await expect(evaluateExpression('1+'.repeat(6000) + '1', ctx)).rejects.toThrow(/longer than/);
    });

    test('JSON-serializable error shape', async () => {
      const err = await errorOf(evaluateExpression('(', ctx));
      expect(JSON.parse(JSON.stringify(err))).toEqual({ code: err.code, message: err.message, position: err.position });
    });
  });

  describe('guard rails', () => {
    test('infinite tail recursion (optimized by JSONata, so no depth growth) hits the time limit', async () => {
      const err = await errorOf(
        evaluateExpression('($f := function($n) { $f($n + 1) }; $f(0))', ctx, {
          timeoutMs: 100,
          maxDepth: 300,
          maxSequence: 1000,
        }),
      );
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('D1012');
    });

    test('infinite non-tail recursion is stopped by the depth limit', async () => {
      const err = await errorOf(evaluateExpression('($f := function($n) { 1 + $f($n + 1) }; $f(0))', ctx));
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('D1011');
      expect(err.message).toMatch(/too deeply/);
    });

    test('moderate recursion still works', async () => {
      expect(await evaluateExpression('($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(20))', ctx)).toBe(20);
    });

    test('long-running evaluations are stopped by the time limit', async () => {
      const started = Date.now();
      const err = await errorOf(
        evaluateExpression('($loop := function($n) { $n > 0 ? $loop($n - 1) : 0 }; $map([1..5000], function($v) { $loop(50) }))', ctx, {
          timeoutMs: 50,
          maxDepth: 1000,
          maxSequence: 1_000_000,
        }),
      );
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('D1012');
      expect(err.message).toMatch(/too long/);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    test('huge sequences are refused', async () => {
      const err = await errorOf(evaluateExpression('[1..1000000]', ctx));
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.code).toBe('D2015');
    });
  });
});

describe('compilation and cache', () => {
  test('checkExpressionSyntax', () => {
    expect(checkExpressionSyntax('input.a & "x"')).toBeNull();
    expect(checkExpressionSyntax('input.a &')).toMatch(/position/);
    expect(checkExpressionSyntax("'unterminated")).toMatch(/String literal must be terminated/);
  });

  test('compiled expressions are cached', () => {
    clearExpressionCache();
    const a = compileExpression('input.x + 1');
    expect(compileExpression('input.x + 1')).toBe(a);
    expect(expressionCacheSize()).toBe(1);
    compileExpression('input.x + 2');
    expect(expressionCacheSize()).toBe(2);
    expect(() => compileExpression('input.x +')).toThrow(ExpressionError);
    expect(expressionCacheSize()).toBe(2); // failures are not cached
  });

  test('the cache is bounded (LRU)', () => {
    clearExpressionCache();
    const first = compileExpression('0');
    for (let i = 1; i <= 1000; i++) compileExpression(String(i));
    expect(expressionCacheSize()).toBe(1000);
    expect(compileExpression('0')).not.toBe(first); // evicted and recompiled
  });

  test('the same compiled expression can be evaluated concurrently with different contexts', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => evaluateExpression('input.n * 2', { input: { n: i }, steps: {}, secrets: {} })),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });
});
