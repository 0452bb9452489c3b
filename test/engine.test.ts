import { setSecret } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { json, startEchoServer } from './helpers/echoServer';
import { closedExecution, runToSettle } from './helpers/runs';
import type { Tenant } from './helpers/tenants';

const TOKEN = 'tok_9f8e7d6c5b4a39281706';
let stack: TestStack;
let tenant: Tenant;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let failuresLeft = 0;

beforeAll(async () => {
  // The operator allowlist lets http steps reach the local test server on loopback.
  stack = await startStack({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  tenant = await stack.tenant();
  await setSecret(stack.db.prisma, stack.box, { workspaceId: tenant.workspaceId, name: 'TOKEN', value: TOKEN });
  echo = await startEchoServer((req, res) => {
    if (req.url.startsWith('/flaky') && failuresLeft > 0) {
      failuresLeft--;
      return json(res, 503, { error: 'try later' });
    }
    if (req.url.startsWith('/missing')) return json(res, 404, { error: 'nope' });
    // Echo everything back, including the credential, as careless APIs do.
    json(
      res,
      200,
      {
        seen: {
          headers: req.headers,
          body: req.body ? JSON.parse(req.body) : null,
          nested: JSON.stringify({ t: req.headers.authorization }),
        },
      },
      {
        'set-cookie': `session=${TOKEN}`,
        'x-echo': 'yes',
      },
    );
  });
});
afterAll(async () => {
  await echo.close();
  await stack.stop();
});

describe('run engine', () => {
  it('calls http steps with templates and removes every secret from outputs', async () => {
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'Call',
        slug: 'call',
        steps: [
          { key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" },
          {
            key: 'notify',
            type: 'http',
            method: 'POST',
            url: `${echo.url}/notify/{{ input.name }}`,
            headers: { Authorization: 'Bearer {{ secrets.TOKEN }}', 'X-Token-Copy': '{{ secrets.TOKEN }}' },
            body: { text: '{{ steps.shape.output.greeting }}', token: '{{ secrets.TOKEN }}', deep: { list: ['{{ secrets.TOKEN }}'] } },
          },
        ],
      },
      { name: 'ada' },
    );
    expect(run.status).toBe('succeeded');
    const sent = echo.requests.find((r) => r.url === '/notify/ada')!;
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(sent.body)).toEqual({ text: 'hello ada', token: TOKEN, deep: { list: [TOKEN] } });

    const out = run.steps[1].output;
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']).toBe('[REDACTED]');
    expect(out.headers['x-echo']).toBe('yes');
    // Inside bodies the secret itself is replaced wherever it appears, even mid-string.
    expect(out.body.seen.headers.authorization).toBe('Bearer [REDACTED]');
    expect(out.body.seen.headers['x-token-copy']).toBe('[REDACTED]');
    expect(out.body.seen.body).toEqual({ text: 'hello ada', token: '[REDACTED]', deep: { list: ['[REDACTED]'] } });
    expect(out.body.seen.nested).not.toContain(TOKEN);
    // Nowhere in the API answer, the database or Temporal's history.
    expect(JSON.stringify(run)).not.toContain(TOKEN);
    const rows = await stack.db.prisma.runStep.findMany({ where: { runId: run.id } });
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    const history = await (await closedExecution(stack, run.id)).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(TOKEN);
  });

  it('removes secrets from error messages', async () => {
    const run = await runToSettle(stack, tenant, {
      name: 'Leak',
      slug: 'leak',
      steps: [{ key: 'boom', type: 'transform', expression: "$error('token was ' & secrets.TOKEN)" }],
    });
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ code: 'expression_error', message: expect.stringContaining('[REDACTED]'), step_key: 'boom' });
    expect(JSON.stringify(run)).not.toContain(TOKEN);
  });

  it("removes secrets from errors of a delay's or a review's `if` (evaluated by the workflow's bookkeeping, not a step attempt)", async () => {
    const leak = "$error('token was ' & secrets.TOKEN)";
    for (const step of [
      { key: 'pause', type: 'delay', duration: '1s', if: leak },
      { key: 'pause', type: 'review', title: 'Check', assignees: ['ops@example.test'], if: leak },
    ]) {
      const run = await runToSettle(stack, tenant, { name: `Leak ${step.type}`, slug: `leak-if-${step.type}`, steps: [step] });
      // With the expression's own code, as a transform's failure has (not a generic step_failed).
      expect(run).toMatchObject({
        status: 'failed',
        error: { code: 'expression_error', step_key: 'pause', message: expect.stringContaining('[REDACTED]') },
      });
      expect(run.steps[0]).toMatchObject({
        status: 'failed',
        error: { code: 'expression_error', message: expect.stringContaining('[REDACTED]') },
      });
      expect(JSON.stringify(run)).not.toContain(TOKEN);
      const rows = await stack.db.prisma.runStep.findMany({ where: { runId: run.id } });
      expect(JSON.stringify(rows)).not.toContain(TOKEN);
      const history = await (await closedExecution(stack, run.id)).fetchHistory();
      expect(JSON.stringify(history)).not.toContain(TOKEN);
    }
  });

  it('retries a step under its retry policy and records the attempts', async () => {
    failuresLeft = 2;
    const run = await runToSettle(stack, tenant, {
      name: 'Flaky',
      slug: 'flaky',
      steps: [{ key: 'call', type: 'http', url: `${echo.url}/flaky`, retry: { max_attempts: 3, backoff: 'fixed', interval: '100ms' } }],
    });
    expect(run.status).toBe('succeeded');
    expect(run.steps[0]).toMatchObject({ status: 'succeeded', attempts: 3, error: null });
  });

  it('fails the run when the attempts run out, naming the step', async () => {
    failuresLeft = 5;
    const run = await runToSettle(stack, tenant, {
      name: 'Down',
      slug: 'down',
      steps: [
        { key: 'call', type: 'http', url: `${echo.url}/flaky`, retry: { max_attempts: 2, backoff: 'fixed', interval: '100ms' } },
        { key: 'after', type: 'transform', expression: "'never'" },
      ],
    });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'http_status', step_key: 'call' });
    expect(run.steps.map((s: any) => [s.key, s.status, s.attempts])).toEqual([
      ['call', 'failed', 2],
      ['after', 'skipped', 0],
    ]);
    expect(run.steps[0].output.status).toBe(503);
  });

  it('accepts a non-2xx status listed in allow_status', async () => {
    const run = await runToSettle(stack, tenant, {
      name: 'Allow',
      slug: 'allow',
      steps: [{ key: 'call', type: 'http', url: `${echo.url}/missing`, allow_status: [404] }],
    });
    expect(run.status).toBe('succeeded');
    expect(run.output).toMatchObject({ status: 404, body: { error: 'nope' } });
  });

  it('skips a step whose `if` is false, jumps on a failed condition with `else`, and sleeps durably', async () => {
    const run = await runToSettle(
      stack,
      tenant,
      {
        name: 'Flow',
        slug: 'flow',
        steps: [
          { key: 'maybe', type: 'transform', if: 'input.notify = true', expression: "'notified'" },
          { key: 'check', type: 'condition', expression: 'input.amount > 100', else: 'small' },
          { key: 'big', type: 'transform', expression: "'big'" },
          { key: 'small', type: 'delay', duration: '200ms' },
          { key: 'end', type: 'transform', expression: "{ 'maybe': steps.maybe.status, 'check': steps.check.output }" },
        ],
      },
      { amount: 5 },
    );
    expect(run.status).toBe('succeeded');
    expect(run.steps.map((s: any) => [s.key, s.status])).toEqual([
      ['maybe', 'skipped'],
      ['check', 'succeeded'],
      ['big', 'skipped'],
      ['small', 'succeeded'],
      ['end', 'succeeded'],
    ]);
    expect(run.output).toEqual({ maybe: 'skipped', check: { passed: false } });
    expect(run.steps[3].duration_ms).toBeGreaterThanOrEqual(200);
  });

  it('ends the run failed with condition_failed and the message when a condition has no else', async () => {
    const run = await runToSettle(stack, tenant, {
      name: 'Gate',
      slug: 'gate',
      steps: [
        { key: 'gate', type: 'condition', expression: 'input.ok = true', message: 'Input was not ok' },
        { key: 'next', type: 'transform', expression: '1' },
      ],
    });
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ code: 'condition_failed', message: 'Input was not ok', step_key: 'gate' });
    expect(run.steps[0]).toMatchObject({ status: 'failed', output: { passed: false } });
    expect(run.steps[1].status).toBe('skipped');
  });

  it('records one run event per finished run, carrying the run with its steps and secrets removed', async () => {
    const ok = await runToSettle(stack, tenant, {
      name: 'Evt',
      slug: 'evt',
      steps: [{ key: 'a', type: 'transform', expression: "'token ' & secrets.TOKEN" }],
    });
    const bad = await runToSettle(stack, tenant, {
      name: 'Evt2',
      slug: 'evt2',
      steps: [{ key: 'a', type: 'condition', expression: 'false' }],
    });
    const events = await stack.db.prisma.event.findMany({
      where: {
        workspaceId: tenant.workspaceId,
        type: { in: ['run.succeeded', 'run.failed'] },
        OR: [{ dedupeKey: { startsWith: `${ok.id}:` } }, { dedupeKey: { startsWith: `${bad.id}:` } }],
      },
    });
    expect(events.map((e) => e.type).sort()).toEqual(['run.failed', 'run.succeeded']);
    const succeeded = events.find((e) => e.type === 'run.succeeded')!;
    expect(succeeded.id).toMatch(/^evt_/);
    expect(succeeded.data).toMatchObject({
      id: ok.id,
      status: 'succeeded',
      output: 'token [REDACTED]',
      steps: [expect.objectContaining({ key: 'a' })],
    });
    expect(JSON.stringify(succeeded.data)).not.toContain(TOKEN);
  });

  it('marks the run in Temporal with search attributes operators can filter on', async () => {
    const run = await runToSettle(stack, tenant, {
      name: 'Tagged',
      slug: 'tagged',
      steps: [{ key: 'a', type: 'transform', expression: '1' }],
    });
    const desc = await (await closedExecution(stack, run.id)).describe();
    expect(desc.searchAttributes).toMatchObject({
      SvcWorkspaceId: [tenant.workspaceId],
      SvcWorkflowId: [run.workflow_id],
      SvcRunStatus: ['succeeded'],
    });
  });
});
