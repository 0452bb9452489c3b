import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { AppError } from '../../errors';
import { jsonDepthExceeds } from '../../shared/jsonDepth';
import { validateRunInput } from '../../definitions/inputSchema';
import { evaluateExpression, evaluateInThisThread } from '../evaluate';
import { expressionErrorCode } from '../expressionError';
import { closeSandbox, SANDBOX_LIMITS } from './pool';

const ctx = (input: unknown) => ({ input, steps: {}, secrets: {} });
const evil = 'a'.repeat(40) + '!';

afterAll(closeSandbox);

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('expression sandbox', () => {
  it('runs user regexes in linear time ($match with a catastrophic pattern)', async () => {
    const t = Date.now();
    await expect(evaluateExpression('$match(input.s, /(a+)+$/)', ctx({ s: evil }))).resolves.toBeNull();
    await expect(evaluateExpression('$contains(input.s, /^(a|aa)+$/)', ctx({ s: evil }))).resolves.toBe(false);
    expect(Date.now() - t).toBeLessThan(1_000);
  });

  it('stops a built-in that would build a huge string with expression_too_large', async () => {
    const err = await failure(evaluateExpression("$pad('', 5e8)", ctx(null)));
    expect(expressionErrorCode(err)).toBe('expression_too_large');
    await expect(evaluateExpression("$pad('x', -3, '#')", ctx(null))).resolves.toBe('##x');
  });

  it('refuses a result too large to hand back', async () => {
    const err = await failure(evaluateExpression("[1..3000].$pad('', 2000)", ctx(null)));
    expect(expressionErrorCode(err)).toBe('expression_too_large');
  });

  it('kills a runaway evaluation at its deadline while this thread keeps serving', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const t = Date.now();
    const err = await failure(evaluateExpression("$count($map([1..99999], function($v){ $pad('', 20000) & $v }))", ctx(null)));
    clearInterval(timer);
    expect(expressionErrorCode(err)).toBe('expression_timeout');
    expect(Date.now() - t).toBeLessThan(5_000);
    // The event loop here was never blocked: the timer ran throughout.
    expect(ticks).toBeGreaterThanOrEqual(20);
    await expect(evaluateExpression('1 + 1', ctx(null))).resolves.toBe(2);
  });

  it('refuses data nested 100,000 deep with expression_too_large, and keeps serving', async () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    // Copying it to a thread overflows V8's serializer: that task fails, the pool stays whole.
    const err = await failure(evaluateExpression('$count(input)', ctx(deep)));
    expect(expressionErrorCode(err)).toBe('expression_too_large');
    // The result walk stops at its bound rather than overflowing.
    const inThread = await failure(evaluateInThisThread('input', ctx(deep)));
    expect([expressionErrorCode(inThread), (inThread as Error).message]).toEqual([
      'expression_too_large',
      `Expression result is nested deeper than ${SANDBOX_LIMITS.maxResultDepth} levels`,
    ]);
    // Built by the expression itself: refused past the bound, handed back below it.
    const nest = (n: number) => evaluateExpression(`$reduce([1..${n}], function($acc, $v){ {'a': $acc} }, {})`, ctx(null));
    expect(expressionErrorCode(await failure(nest(300)))).toBe('expression_too_large');
    const below = await nest(150);
    expect([jsonDepthExceeds(below, 150), jsonDepthExceeds(below, 151)]).toEqual([true, false]);
    await expect(evaluateExpression('1 + 1', ctx(null))).resolves.toBe(2);
  });

  it('validates input-schema patterns with RE2 in a thread', async () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const t = Date.now();
    const err = await failure(validateRunInput(schema, { s: evil }, 'ws_test'));
    expect(Date.now() - t).toBeLessThan(1_500);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    expect((err as AppError).errors).toEqual([{ path: 'input.s', message: expect.stringContaining('must match pattern') }]);
    await expect(validateRunInput(schema, { s: 'aaa' }, 'ws_test')).resolves.toBeUndefined();
  });
});

it('never keeps a process alive once idle: a script that evaluates one expression exits by itself', () => {
  // The built package, as the gateway, the worker and the CLI load it (npm test builds first).
  const dist = path.resolve(__dirname, '../../../dist');
  const script = `require(${JSON.stringify(dist)}).evaluateExpression('1 + 1', { input: {}, steps: {}, secrets: {} }).then((v) => console.log(v))`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect({ status: r.status, signal: r.signal, out: r.stdout.trim() }).toEqual({ status: 0, signal: null, out: '2' });
});
