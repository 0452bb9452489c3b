// Records one Temporal history per run shape into test/replay/histories/<shape>.json, by running
// each shape for real on the integration stack. Not a test: run it with `node scripts/record-histories.js`
// (see test/replay/README.md for when to, which is rarely).
import path from 'node:path';
import { deliveryWorkflowId } from '@svc/domain';
import { json, startEchoServer } from '../helpers/echoServer';
import { waitFor } from '../helpers/fixtures';
import { startHttpsReceiver, testCertificate } from '../helpers/httpsReceiver';
import { startStack } from '../helpers/stack';
import { growHistory } from '../workflows/harness';
import type { TestStack } from '../helpers/stack';
import { writeHistory } from './historyFile';
import type { Tenant } from '../helpers/tenants';

const HISTORIES = path.join(__dirname, 'histories');
let stack: TestStack;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let tenant: Tenant;
let failuresLeft = 0;
/** Answers the request the slot holder's http step is waiting on. */
let releaseHolder = () => {};

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
  });
  tenant = await stack.tenant();
  echo = await startEchoServer((req, res) => {
    if (req.url === '/hold') {
      releaseHolder = () => json(res, 200, { held: true });
      return;
    }
    if (failuresLeft > 0) {
      failuresLeft--;
      return json(res, 503, { error: 'try later' });
    }
    json(res, 200, { ok: true });
  });
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await echo.close();
  await receiver.close();
  await stack.stop();
});

/** Records the history of the workflow's latest execution, or of the one given. */
async function save(shape: string, workflowId: string, runId?: string): Promise<void> {
  const history = await stack.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  writeHistory(path.join(HISTORIES, `${shape}.json`), history);
}

async function start(definition: unknown, body: Record<string, unknown> = {}, t = tenant) {
  const wf = await stack.apply(t.workspaceId, definition);
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: t.key, body: { input: {}, ...body } });
  expect(r.status).toBe(201);
  return r.body;
}

/** Waits for the workflow to close, then records its history. */
async function record(shape: string, workflowId: string): Promise<void> {
  await stack.temporal.workflow.getHandle(workflowId).result();
  await save(shape, workflowId);
}

const review = (slug: string, extra: Record<string, unknown> = {}) => ({
  name: 'Refund',
  slug,
  steps: [
    { key: 'prepare', type: 'transform', expression: "{ 'amount': input.amount }" },
    { key: 'approve', type: 'review', title: 'Approve', assignees: ['ops@example.test'], ...extra },
    { key: 'pay', type: 'transform', expression: "'paid'" },
  ],
});

it('transform: one step, wait: true', async () => {
  const run = await start(
    { name: 'T', slug: 'transform', steps: [{ key: 'shape', type: 'transform', expression: "'hi'" }] },
    { wait: true },
  );
  expect(run.status).toBe('succeeded');
  await record('transform', run.id);
});

it('http-retries: a step that fails twice with 503, then succeeds', async () => {
  failuresLeft = 2;
  const run = await start(
    {
      name: 'H',
      slug: 'http-retries',
      steps: [{ key: 'call', type: 'http', url: `${echo.url}/flaky`, retry: { max_attempts: 3, backoff: 'fixed', interval: '100ms' } }],
    },
    { wait: true },
  );
  expect([run.status, run.steps[0].attempts]).toEqual(['succeeded', 3]);
  await record('http-retries', run.id);
});

it('review-approved', async () => {
  const run = await start(review('review-approved'), { input: { amount: 5 }, wait: true });
  expect(run.status).toBe('waiting_for_review');
  const d = await stack.api('POST', `/api/v1/runs/${run.id}/review`, { key: tenant.key, body: { decision: 'approve' } });
  expect(d.status).toBe(200);
  await record('review-approved', run.id);
});

it('review-expired: a short timeout', async () => {
  const run = await start(review('review-expired', { timeout: '1s' }), { input: { amount: 5 } });
  expect(await stack.temporal.workflow.getHandle(run.id).result()).toEqual({ status: 'failed' });
  await save('review-expired', run.id);
});

it('condition-jump: else jumps over a step', async () => {
  const run = await start(
    {
      name: 'C',
      slug: 'condition-jump',
      steps: [
        { key: 'check', type: 'condition', expression: 'input.amount > 100', else: 'small' },
        { key: 'big', type: 'transform', expression: "'big'" },
        { key: 'small', type: 'transform', expression: "'small'" },
      ],
    },
    { input: { amount: 5 }, wait: true },
  );
  expect(run.steps.map((s: { status: string }) => s.status)).toEqual(['succeeded', 'skipped', 'succeeded']);
  await record('condition-jump', run.id);
});

/** A succeeded run with one webhook endpoint for its `run.succeeded`; resolves with its delivery's workflow id once `delivery` holds for the delivery's row. */
async function runWithDelivery(slug: string, delivery: (d: { status: string; dispatchedAt: Date | null } | null) => boolean) {
  const t = await stack.tenant();
  const ep = await stack.api('POST', '/api/v1/webhook-endpoints', {
    key: t.key,
    body: { url: `${receiver.origin}/hook`, event_types: ['run.succeeded'] },
  });
  expect(ep.status).toBe(201);
  const run = await start({ name: 'D', slug, steps: [{ key: 'a', type: 'transform', expression: "'x'" }] }, { wait: true }, t);
  expect(run.status).toBe('succeeded');
  const found = await waitFor(() => stack.db.prisma.webhookDelivery.findFirst({ where: { endpointId: ep.body.id } }), delivery);
  return deliveryWorkflowId(found!.id, 0);
}

it('delivery: the webhook of a run, started eagerly by the worker that ended the run', async () => {
  await record('delivery', await runWithDelivery('delivery', (d) => d?.status === 'succeeded'));
});

it('delivery-queued: the same, started by a worker that serves runs only (an ordinary start)', async () => {
  await stack.stopWorker();
  await stack.startWorker(['runs']);
  const workflowId = await runWithDelivery('delivery-queued', (d) => d?.dispatchedAt != null);
  // Its first task waited in the delivery queue for a Worker that serves it.
  await stack.stopWorker();
  await stack.startWorker();
  await record('delivery-queued', workflowId);
});

it('cancel-queued, queued-continued-as-new and queued-granted: one slot, held by a long http request', async () => {
  const limited = await stack.tenant({ limits: { concurrency: 1 } });
  const holder = await start(
    { name: 'Holder', slug: 'holder', steps: [{ key: 'hold', type: 'http', url: `${echo.url}/hold`, timeout: '5m' }] },
    {},
    limited,
  );
  await waitFor(
    () => stack.api('GET', `/api/v1/runs/${holder.id}`, { key: limited.key }),
    (x) => x.body.steps[0].status === 'running',
  );
  const queued = { name: 'Q', slug: 'queued', steps: [{ key: 'a', type: 'transform', expression: "'ran'" }] };
  const cancelled = await start(queued, {}, limited);
  expect(cancelled.status).toBe('queued');
  const c = await stack.api('POST', `/api/v1/runs/${cancelled.id}/cancel`, { key: limited.key });
  expect([c.status, c.body.status]).toEqual([200, 'cancelled']);
  await record('cancel-queued', cancelled.id);

  // A run queued so long that its history passed QUEUED_HISTORY_LIMIT goes on as a new execution,
  // which the holder's end then lets in.
  const granted = await start(queued, {}, limited);
  expect(granted.status).toBe('queued');
  const { runId: firstExecution } = await stack.temporal.workflow.getHandle(granted.id).describe();
  await growHistory(stack.temporal.workflow.getHandle(granted.id, firstExecution));
  await save('queued-continued-as-new', granted.id, firstExecution);
  releaseHolder();
  await record('queued-granted', granted.id);
  expect(await stack.temporal.workflow.getHandle(holder.id).result()).toEqual({ status: 'succeeded' });
});
