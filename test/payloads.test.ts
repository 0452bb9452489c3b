import { temporal } from '@temporalio/proto';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { json, startEchoServer } from './helpers/echoServer';
import { closedExecution, runToSettle } from './helpers/runs';
import type { Tenant } from './helpers/tenants';

/**
 * The run workflow carries ids, never data: the input and step outputs live in
 * PostgreSQL, so a run's Temporal history stays small however large its data.
 */
let stack: TestStack;
let tenant: Tenant;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
const RESPONSE_CHARS = 1_000_000;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  tenant = await stack.tenant();
  // ~1 MiB answers (just under the http step's 1 MiB response cap), each tagged by its path.
  echo = await startEchoServer((req, res) => json(res, 200, { at: req.url, blob: req.url.slice(1, 2).repeat(RESPONSE_CHARS) }));
});
afterAll(async () => {
  await echo.close();
  await stack.stop();
});

async function historyBytes(runId: string): Promise<number> {
  const history = await (await closedExecution(stack, runId)).fetchHistory();
  return temporal.api.history.v1.History.encode(history).finish().byteLength;
}

describe('run data stays out of Temporal history', () => {
  it('runs a 1 MiB input through two ~1 MiB http responses with a history under 100 KB', async () => {
    const input = { blob: 'i'.repeat(1_000_000) };
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'Big',
        slug: 'big',
        steps: [
          { key: 'first', type: 'http', method: 'POST', url: `${echo.url}/a`, body: { size: '{{ $length(input.blob) }}' } },
          { key: 'second', type: 'http', method: 'POST', url: `${echo.url}/b`, body: { prev: '{{ steps.first.output.body.at }}' } },
          {
            key: 'sizes',
            type: 'transform',
            expression: '[$length(input.blob), $length(steps.first.output.body.blob), $length(steps.second.output.body.blob)]',
          },
        ],
      },
      input,
    );
    expect(run.status).toBe('succeeded');
    // Later steps read earlier outputs and the input from PostgreSQL.
    expect(JSON.parse(echo.requests.find((r) => r.url === '/b')!.body)).toEqual({ prev: '/a' });
    expect(run.output).toEqual([1_000_000, RESPONSE_CHARS, RESPONSE_CHARS]);
    expect(run.steps[0].output.body.blob).toHaveLength(RESPONSE_CHARS);

    const bytes = await historyBytes(run.id);
    // Measured: a few KB (ids, the pinned definition and bookkeeping), against the ~3 MB of data.
    expect(bytes).toBeLessThan(100 * 1024);
    expect(bytes).toBeGreaterThan(0);
  });

  it('fails a step whose output is over the store limit with step_output_too_large', async () => {
    const s = 'o'.repeat(900_000);
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'Huge',
        slug: 'huge',
        steps: [
          { key: 'triple', type: 'transform', expression: '[input.s, input.s, input.s]' },
          { key: 'after', type: 'transform', expression: '1' },
        ],
      },
      { s },
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'step_output_too_large', step_key: 'triple' });
    expect(run.steps[0]).toMatchObject({ status: 'failed', output: null, error: { code: 'step_output_too_large' } });
    expect(run.steps[1].status).toBe('skipped');
    expect(await historyBytes(run.id)).toBeLessThan(100 * 1024);
  });
});
