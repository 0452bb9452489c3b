// A review records who decided as the server authenticated them (`decided_via`), beside the
// free-text `decided_by` label. Every decision path is
// exercised black-box, each with a request that tries to name someone else.
import { userInfo } from 'node:os';
import { createApiKey, createSession } from '@svc/domain';
import { createReviewLinkSigner } from '@svc/signing';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { waitFor } from './helpers/fixtures';
import { call } from './helpers/http';
import { svcCli } from './helpers/cli';
import { member } from './helpers/console';

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

const SPOOF = { type: 'api_key', id: 'key_forged' };

async function pausedRun(slug: string, review: Record<string, unknown> = {}) {
  const wf = await stack.apply(workspaceId, {
    name: 'Audited',
    slug,
    steps: [
      { key: 'gate', type: 'review', title: 'Ship it?', assignees: ['ops@example.test'], ...review },
      { key: 'ship', type: 'transform', expression: "'shipped'" },
    ],
  });
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {}, wait: true } });
  expect(r.body.status).toBe('waiting_for_review');
  expect(r.body.review.decided_via).toBeNull();
  return r.body;
}

const getRun = (id: string) => stack.api('GET', `/api/v1/runs/${id}`, { key });
const settled = (id: string) =>
  waitFor(
    () => getRun(id),
    (r) => ['succeeded', 'failed'].includes(r.body.status),
  );

describe('decided_via', () => {
  it('API: the key that authenticated, whatever decided_by says; decided_via itself cannot be sent', async () => {
    const second = await createApiKey(stack.db.prisma, { workspaceId, name: 'second', scopes: ['reviews:write', 'runs:read'] });
    const run = await pausedRun('audit-api');
    const forged = await stack.api('POST', `/api/v1/runs/${run.id}/review`, {
      key: second.key,
      body: { decision: 'approve', decided_by: 'someone-else', decided_via: SPOOF },
    });
    expect([forged.status, forged.body.code]).toEqual([422, 'validation_failed']);

    const r = await stack.api('POST', `/api/v1/runs/${run.id}/review`, {
      key: second.key,
      body: { decision: 'approve', decided_by: 'someone-else' },
    });
    expect(r.status).toBe(200);
    expect(r.body.review).toMatchObject({ decided_by: 'someone-else', decided_via: { type: 'api_key', id: second.id } });
    const done = await settled(run.id);
    expect(done.body.review.decided_via).toEqual({ type: 'api_key', id: second.id });
    // The review.decided event carries it too.
    const event = await stack.db.prisma.event.findFirstOrThrow({ where: { dedupeKey: `${run.review.id}:review.decided` } });
    expect(event.data).toMatchObject({ id: run.review.id, decided_via: { type: 'api_key', id: second.id } });
  });

  it('review link: the assignee the signed link was mailed to, not a field of the form', async () => {
    const run = await pausedRun('audit-link');
    const signer = createReviewLinkSigner(stack.config.SVC_ENCRYPTION_KEY!);
    const token = signer.sign({ reviewId: run.review.id, email: 'ops@example.test', expiresAt: Date.now() + 60_000 });
    const page = await call(`${stack.url}/reviews/${run.review.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(stack.url).origin },
      body: new URLSearchParams({
        token,
        form_token: signer.formToken(token),
        decision: 'approve',
        decided_by: 'someone-else',
        decided_via: 'console',
        email: 'eve@example.test',
      }).toString(),
    });
    expect(page.status).toBe(200);
    const done = await settled(run.id);
    expect(done.body.review).toMatchObject({
      status: 'approved',
      decided_by: 'ops@example.test',
      decided_via: { type: 'review_link', id: 'ops@example.test' },
    });
  });

  it('console: the signed-in member, shown on the run page', async () => {
    await member(stack, workspaceId, 'lead@example.test', 'member');
    const m = await stack.db.prisma.member.findUniqueOrThrow({ where: { email: 'lead@example.test' } });
    const sessionId = await createSession(stack.db.prisma, m.id);
    const { csrfToken } = await stack.db.prisma.consoleSession.findFirstOrThrow({ where: { memberId: m.id } });
    const cookie = `svc_console=${sessionId}`;
    const run = await pausedRun('audit-console');
    const r = await call(`${stack.url}/console/runs/${run.id}/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrfToken, decision: 'reject', decided_by: 'someone-else', decided_via: 'cli' }).toString(),
    });
    expect(r.status).toBe(303);
    const done = await settled(run.id);
    expect(done.body.review).toMatchObject({
      status: 'rejected',
      decided_by: 'lead@example.test',
      decided_via: { type: 'console', id: m.id },
    });
    const html = await call(`${stack.url}/console/runs/${run.id}`, { headers: { cookie } });
    expect(html.body).toContain('data-decided-via="console"');
    expect(html.body).toContain(`via console member ${m.id}`);
  });

  it('CLI: recorded as the CLI with the OS account that ran it; --by changes only the label', async () => {
    const run = await pausedRun('audit-cli');
    const decided = await svcCli(['reviews', 'decide', run.review.id, '--approve', '--by', 'someone-else', '--json']);
    expect(decided.stderr).toBe('');
    expect(decided.json()).toMatchObject({ decided_by: 'someone-else', decided_via: { type: 'cli', id: userInfo().username } });
    await settled(run.id);
    const shown = await svcCli(['runs', 'show', run.id]);
    expect(shown.stdout).toContain(`decided approved by someone-else (via svc CLI, OS account ${userInfo().username})`);
  });

  it('Temporal signal: recorded as temporal, with no id', async () => {
    const run = await pausedRun('audit-signal');
    await stack.temporal.workflow
      .getHandle(run.id)
      .signal('decideReview', { review_id: run.review.id, decision: 'approved', decided_by: 'someone-else', decidedVia: SPOOF });
    const done = await settled(run.id);
    expect(done.body.review).toMatchObject({ decided_by: 'temporal', decided_via: { type: 'temporal', id: null } });
  });

  it('expiry: recorded as the timeout', async () => {
    const run = await pausedRun('audit-expiry', { timeout: '1s' });
    const done = await settled(run.id);
    expect(done.body.review).toMatchObject({ status: 'expired', decided_by: null, decided_via: { type: 'timeout', id: null } });
  });
});
