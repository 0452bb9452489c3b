import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { slow, waitFor } from './helpers/fixtures';
import { svcCli } from './helpers/cli';

let stack: TestStack;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ key, workspaceId } = await stack.tenant());
});
afterAll(async () => {
  await stack.stop();
});

function reviewFlow(slug: string, review: Record<string, unknown> = {}) {
  return {
    name: 'Refund',
    slug,
    steps: [
      { key: 'prepare', type: 'transform', expression: "{ 'amount': input.amount }" },
      {
        key: 'approve',
        type: 'review',
        title: 'Approve the refund',
        instructions: 'Check the **amount**.',
        assignees: ['ops@example.test'],
        data: 'steps.prepare.output',
        ...review,
      },
      { key: 'pay', type: 'transform', expression: "'paid ' & $string(steps.prepare.output.amount)" },
    ],
  };
}

async function startPaused(slug: string, review: Record<string, unknown> = {}) {
  const wf = await stack.apply(workspaceId, reviewFlow(slug, review));
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
    key,
    body: { input: { amount: 42, customer: 'Ada' }, wait: true },
  });
  expect(r.status).toBe(201);
  expect(r.body.status).toBe('waiting_for_review');
  return r.body;
}

const getRun = (id: string) => stack.api('GET', `/api/v1/runs/${id}`, { key });
const decide = (id: string, body: unknown, k = key) => stack.api('POST', `/api/v1/runs/${id}/review`, { key: k, body });
const cancel = (id: string) => stack.api('POST', `/api/v1/runs/${id}/cancel`, { key });
const settled = (id: string, status: string) =>
  waitFor(
    () => getRun(id),
    (r) => r.body.status === status,
    20_000,
  );
const eventTypesNow = async (runId: string) =>
  (await stack.db.prisma.event.findMany({ where: { workspaceId, data: { path: ['id'], equals: runId } } })).map((e) => e.type).sort();
/** The run's events once `count` are recorded (the final one follows the read model by a moment). */
const eventTypes = (runId: string, count: number) =>
  waitFor(
    () => eventTypesNow(runId),
    (types) => types.length >= count,
  );

const svc = (args: string[]) => svcCli([...args, '--json']);

describe('review steps', () => {
  it('pause the run with the review attached, and an API approval resumes it', async () => {
    const run = await startPaused('refund-approve');
    expect(run.review).toMatchObject({
      step_key: 'approve',
      status: 'pending',
      title: 'Approve the refund',
      instructions: 'Check the **amount**.',
      assignees: ['ops@example.test'],
      data: { amount: 42 },
      decision: null,
    });
    expect(run.review.id).toMatch(/^rev_/);
    expect(Date.parse(run.review.expires_at) - Date.parse(run.review.requested_at)).toBeGreaterThan(6.9 * 24 * 3600_000);
    expect(run.steps.map((s: any) => s.status)).toEqual(['succeeded', 'waiting_for_review', 'pending']);

    const decided = await decide(run.id, { decision: 'approve', comment: 'fine', decided_by: 'ana@example.test' });
    expect(decided.status).toBe(200);
    expect(decided.body.review).toMatchObject({
      status: 'approved',
      decision: 'approved',
      decided_by: 'ana@example.test',
      comment: 'fine',
    });
    const done = await settled(run.id, 'succeeded');
    expect(done.body.output).toBe('paid 42');
    expect(done.body.steps[1]).toMatchObject({
      status: 'succeeded',
      output: { decision: 'approved', decided_by: 'ana@example.test', comment: 'fine' },
    });
    expect(await eventTypes(run.id, 2)).toEqual(['run.succeeded', 'run.waiting_for_review']);
    const decidedEvent = await stack.db.prisma.event.findFirstOrThrow({ where: { dedupeKey: `${run.review.id}:review.decided` } });
    // Each fact once, however often its activity ran.
    expect(await eventTypesNow(run.id)).toHaveLength(2);
    expect(decidedEvent.data).toMatchObject({ id: run.review.id, run_id: run.id, status: 'approved' });
  });

  it('a rejection fails the run with review_rejected; the second decision gets 409', async () => {
    const run = await startPaused('refund-reject');
    const first = await decide(run.id, { decision: 'reject' });
    expect(first.status).toBe(200);
    expect(first.body.review.decided_by).toMatch(/^key_/);
    const second = await decide(run.id, { decision: 'approve' });
    expect([second.status, second.body.code]).toEqual([409, 'review_already_decided']);
    const done = await settled(run.id, 'failed');
    expect(done.body.error).toMatchObject({ code: 'review_rejected', step_key: 'approve' });
    expect(done.body.steps.map((s: any) => s.status)).toEqual(['succeeded', 'failed', 'skipped']);
  });

  it('on_reject: continue keeps the run going with the decision as output', async () => {
    const run = await startPaused('refund-continue', { on_reject: 'continue' });
    await decide(run.id, { decision: 'rejected' });
    const done = await settled(run.id, 'succeeded');
    expect(done.body.steps[1].output.decision).toBe('rejected');
  });

  it('expires on a durable timer: rejected by default, approved when on_timeout says so', async () => {
    const expired = await startPaused('refund-expire', { timeout: '1s' });
    const failed = await settled(expired.id, 'failed');
    expect(failed.body.error.code).toBe('review_expired');
    expect(failed.body.review).toMatchObject({ status: 'expired', decision: 'rejected', decided_by: null });

    const lenient = await startPaused('refund-expire-ok', { timeout: '1s', on_timeout: 'approve' });
    const ok = await settled(lenient.id, 'succeeded');
    expect(ok.body.review).toMatchObject({ status: 'expired', decision: 'approved' });
    expect((await decide(lenient.id, { decision: 'approve' })).body.code).toBe('review_already_decided');
  });

  it('answers 409 no_pending_review for a run without a review, and validates the body', async () => {
    const wf = await stack.apply(workspaceId, { name: 'Plain', slug: 'plain', steps: [{ key: 'a', type: 'transform', expression: '1' }] });
    const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
    const noReview = await decide(r.body.id, { decision: 'approve' });
    expect([noReview.status, noReview.body.code]).toEqual([409, 'no_pending_review']);
    const bad = await decide(r.body.id, { decision: 'maybe' });
    expect([bad.status, bad.body.code]).toEqual([422, 'validation_failed']);
    const scoped = await stack.tenant({ scopes: ['runs:read'] });
    expect((await decide(r.body.id, { decision: 'approve' }, scoped.key)).body.code).toBe('insufficient_scope');
    const other = await stack.tenant();
    expect((await decide(r.body.id, { decision: 'approve' }, other.key)).body.code).toBe('run_not_found');
  });

  it('can be listed and decided with the svc CLI', async () => {
    const run = await startPaused('refund-cli');
    const listed = await svc(['reviews', 'list', '--workspace', workspaceId, '--pending']);
    expect(listed.code).toBe(0);
    expect(listed.json().data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: run.review.id, run_id: run.id, status: 'pending' })]),
    );
    const decided = await svc(['reviews', 'decide', run.review.id, '--approve', '--comment', 'ok from cli', '--by', 'lead@example.test']);
    expect(decided.stderr).toBe('');
    expect(decided.code).toBe(0);
    expect(decided.json()).toMatchObject({ status: 'approved', decided_by: 'lead@example.test', comment: 'ok from cli' });
    await settled(run.id, 'succeeded');
    const again = await svc(['reviews', 'decide', run.review.id, '--reject']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('review_already_decided');
  });
});

describe('cancel', () => {
  it('cancels a run waiting for review: run, review and step end cancelled; twice is 200 again', async () => {
    const run = await startPaused('refund-cancel');
    const r = await cancel(run.id);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    expect(r.body.review.status).toBe('cancelled');
    expect(r.body.steps.map((s: any) => s.status)).toEqual(['succeeded', 'cancelled', 'cancelled']);
    expect(r.body.finished_at).not.toBeNull();
    expect((await cancel(run.id)).status).toBe(200);
    const result = await stack.temporal.workflow.getHandle(run.id).result();
    expect(result).toEqual({ status: 'cancelled' });
    expect(await eventTypes(run.id, 2)).toEqual(['run.cancelled', 'run.waiting_for_review']);
    expect((await decide(run.id, { decision: 'approve' })).body.code).toBe('no_pending_review');
  });

  it('refuses running, succeeded and failed runs with 409 naming the status', async () => {
    const wf = await stack.apply(workspaceId, slow(3000, 'cancel-running'));
    const running = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } });
    await waitFor(
      () => getRun(running.body.id),
      (r) => r.body.status === 'running',
    );
    const r1 = await cancel(running.body.id);
    expect([r1.status, r1.body.code, r1.body.run_status]).toEqual([409, 'run_not_cancellable', 'running']);
    expect(r1.body.detail).toContain('running');
    await settled(running.body.id, 'succeeded');
    const r2 = await cancel(running.body.id);
    expect([r2.status, r2.body.run_status]).toEqual([409, 'succeeded']);

    const failing = await startPaused('cancel-failed');
    await decide(failing.id, { decision: 'reject' });
    await settled(failing.id, 'failed');
    expect((await cancel(failing.id)).body.run_status).toBe('failed');
    expect((await stack.api('POST', '/api/v1/runs/run_000000000000000000000000/cancel', { key })).body.code).toBe('run_not_found');
  });

  it('renders the title and instructions as templates over the input and the steps when the review opens', async () => {
    const run = await startPaused('templated-review', {
      title: 'Approve refund of {{ steps.prepare.output.amount }} for {{ input.customer }}?',
      instructions: 'Customer **{{ input.customer }}** asked; secrets stay out: {{ secrets.NOPE }}.',
    });
    expect(run.review.title).toBe('Approve refund of 42 for Ada?');
    expect(run.review.instructions).toBe('Customer **Ada** asked; secrets stay out: .');
    expect((await getRun(run.id)).body.review.title).toBe('Approve refund of 42 for Ada?');
  });

  it('cancels a queued run before any step runs', async () => {
    // One slot, held by a run sleeping in a delay step: the next run stays queued, with its
    // workflow live (no ordering of a stopped worker against an in-flight request needed).
    const limited = await stack.tenant({ limits: { concurrency: 1 } });
    const holder = await stack.apply(limited.workspaceId, {
      name: 'Holds the slot',
      slug: 'holds-slot',
      steps: [{ key: 'wait', type: 'delay', duration: '10m' }],
    });
    const wf = await stack.apply(limited.workspaceId, {
      name: 'Q',
      slug: 'queued-cancel',
      steps: [{ key: 'a', type: 'transform', expression: "'ran'" }],
    });
    const start = (id: string) => stack.api('POST', `/api/v1/workflows/${id}/runs`, { key: limited.key, body: { input: {} } });
    const h = await start(holder.id);
    await waitFor(
      () => stack.api('GET', `/api/v1/runs/${h.body.id}`, { key: limited.key }),
      (x) => x.body.steps[0].status === 'running',
    );
    const r = await start(wf.id);
    expect(r.body.status).toBe('queued');
    const c = await stack.api('POST', `/api/v1/runs/${r.body.id}/cancel`, { key: limited.key });
    expect([c.status, c.body.status]).toEqual([200, 'cancelled']);
    expect(c.body.steps).toEqual([expect.objectContaining({ key: 'a', status: 'cancelled', attempts: 0, output: null })]);
    expect(await stack.temporal.workflow.getHandle(r.body.id).result()).toEqual({ status: 'cancelled' });
  });

  it('races a decision: exactly one wins, and the API agrees with Temporal', async () => {
    for (let i = 0; i < 4; i++) {
      const run = await startPaused(`race-${i}`);
      const [c, d] = await Promise.all([cancel(run.id), decide(run.id, { decision: 'approve' })]);
      const winners = [c.status, d.status].filter((s) => s === 200);
      expect(winners).toHaveLength(1);
      const { status } = await stack.temporal.workflow.getHandle(run.id).result();
      const final = (await getRun(run.id)).body;
      expect(final.status).toBe(status);
      if (c.status === 200) {
        expect(status).toBe('cancelled');
        expect(final.review.status).toBe('cancelled');
        expect([d.status, d.body.code]).toEqual([409, 'no_pending_review']);
      } else {
        expect(status).toBe('succeeded');
        expect(final.review.status).toBe('approved');
        expect([c.status, c.body.code]).toEqual([409, 'run_not_cancellable']);
      }
    }
  });
});
