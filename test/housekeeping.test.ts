import { LINK_REQUEST_WINDOW_MS, newId, OUTBOX_RETENTION_MS, showTrigger, SIGN_IN_WINDOW_MS, sweepExpired } from '@svc/domain';
import { createRateLimiter } from '@svc/gateway';
import { reconcilerScheduleId } from '@svc/temporal';
import { call } from './helpers/http';
import { waitFor } from './helpers/fixtures';
import { startGreetStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// Housekeeping: the reconciler Schedule sweeps rows that can no longer matter.
let stack: TestStack;
let key: string;
let workspaceId: string;
let wfId: string;
beforeAll(async () => {
  ({ stack, key, workspaceId, wfId } = await startGreetStack());
});
afterAll(async () => {
  await stack?.stop();
});

it('sweeps idempotency keys past their 24 h window, and keeps the live ones and the runs', async () => {
  const start = (idem: string) =>
    stack.api('POST', `/api/v1/workflows/${wfId}/runs`, { key, body: { input: { name: idem } }, headers: { 'idempotency-key': idem } });
  const old = await start('sweep-old');
  const live = await start('sweep-live');
  expect([old.status, live.status]).toEqual([201, 201]);
  // An inbound trigger's record (same table, the trigger as scope) past its window too.
  const hook = await showTrigger(stack.db.prisma, stack.box, { workflowId: wfId, baseUrl: stack.url });
  const fired = await call(hook.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-secret': hook.secret, 'idempotency-key': 'sweep-old' },
    body: '{"name":"hook"}',
  });
  expect(fired.status).toBe(202);
  await stack.db.prisma.idempotencyKey.updateMany({
    where: { workspaceId, key: 'sweep-old' },
    data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
  });
  await stack.temporal.schedule.getHandle(reconcilerScheduleId(stack.taskQueue)).trigger();
  await waitFor(
    () => stack.db.prisma.idempotencyKey.count({ where: { workspaceId, key: 'sweep-old' } }),
    (n) => n === 0,
  );
  expect(await stack.db.prisma.idempotencyKey.count({ where: { workspaceId, key: 'sweep-live' } })).toBe(1);
  expect(await stack.db.prisma.run.count({ where: { id: { in: [old.body.id, live.body.id] } } })).toBe(2);
  // The live key still replays; the swept one starts a new run.
  expect((await start('sweep-live')).status).toBe(200);
  const again = await start('sweep-old');
  expect([again.status, again.body.id === old.body.id]).toEqual([201, false]);
});

it('sweeps console sessions and sign-in links a day after they expired (sessions also a day after revocation)', async () => {
  const { prisma } = stack.db;
  const memberId = newId('mem');
  await prisma.member.create({ data: { id: memberId, workspaceId, email: `${memberId}@example.test`, role: 'member' } });
  const ago = (hours: number) => new Date(Date.now() - hours * 3600_000);
  const session = (idHash: string, expiresAt: Date, revokedAt: Date | null = null) =>
    prisma.consoleSession.create({ data: { idHash: `${memberId}-${idHash}`, memberId, csrfToken: 'csrf', expiresAt, revokedAt } });
  await session('expired-long-ago', ago(25));
  await session('revoked-long-ago', ago(-12), ago(25));
  await session('expired-lately', ago(1));
  await session('live', ago(-12));
  const link = (tokenHash: string, expiresAt: Date) =>
    prisma.signInLink.create({ data: { tokenHash: `${memberId}-${tokenHash}`, memberId, purpose: 'sign_in', expiresAt } });
  await link('expired-long-ago', ago(25));
  await link('expired-lately', ago(1));
  await link('live', ago(-1));

  await stack.temporal.schedule.getHandle(reconcilerScheduleId(stack.taskQueue)).trigger();
  const left = async () => ({
    sessions: (await prisma.consoleSession.findMany({ where: { memberId }, orderBy: { idHash: 'asc' } })).map((r) =>
      r.idHash.slice(memberId.length + 1),
    ),
    links: (await prisma.signInLink.findMany({ where: { memberId }, orderBy: { tokenHash: 'asc' } })).map((r) =>
      r.tokenHash.slice(memberId.length + 1),
    ),
  });
  await waitFor(left, (l) => l.sessions.length === 2 && l.links.length === 2);
  expect(await left()).toEqual({ sessions: ['expired-lately', 'live'], links: ['expired-lately', 'live'] });
});

it('sweeps outbox mail past its retention, and sign-in failures and link requests past their throttle windows', async () => {
  const { prisma } = stack.db;
  const tag = newId('mem');
  const ago = (ms: number) => new Date(Date.now() - ms);
  const minute = 60_000;
  await prisma.outboxEmail.createMany({
    data: [
      { recipients: [`old@${tag}.test`], subject: 'old', textBody: 'x', createdAt: ago(OUTBOX_RETENTION_MS + minute) },
      { recipients: [`kept@${tag}.test`], subject: 'kept', textBody: 'x', createdAt: ago(OUTBOX_RETENTION_MS - 60 * minute) },
    ],
  });
  await prisma.signInFailure.createMany({
    data: [
      { email: `old@${tag}.test`, address: tag, at: ago(SIGN_IN_WINDOW_MS + minute) },
      { email: `kept@${tag}.test`, address: tag, at: ago(SIGN_IN_WINDOW_MS - minute) },
    ],
  });
  await prisma.signInLinkRequest.createMany({
    data: [
      { email: `old@${tag}.test`, at: ago(LINK_REQUEST_WINDOW_MS + minute) },
      { email: `kept@${tag}.test`, at: ago(LINK_REQUEST_WINDOW_MS - minute) },
    ],
  });
  const left = async () => ({
    outbox: (await prisma.outboxEmail.findMany({ where: { recipients: { hasSome: [`old@${tag}.test`, `kept@${tag}.test`] } } })).map(
      (m) => m.subject,
    ),
    failures: (await prisma.signInFailure.findMany({ where: { address: tag } })).map((f) => f.email),
    linkRequests: (await prisma.signInLinkRequest.findMany({ where: { email: { endsWith: `@${tag}.test` } } })).map((r) => r.email),
  });
  // Passes until one finds nothing more to delete (older rows of other tests go too, a batch at a time).
  for (let pass = 0; pass < 100; pass++) {
    const swept = await sweepExpired(prisma);
    if (swept.outboxEmails + swept.signInFailures + swept.signInLinkRequests === 0) break;
  }
  expect(await left()).toEqual({ outbox: ['kept'], failures: [`kept@${tag}.test`], linkRequests: [`kept@${tag}.test`] });
});

it('a gateway sweeps rate-limit rows whose window ended over an hour ago', async () => {
  const limiter = createRateLimiter({ db: stack.db.sql, unauthenticatedPerMin: 10, cleanupEveryMs: 100 });
  try {
    const tag = newId('run');
    const rows = (k: string) => stack.db.pool.query('SELECT 1 FROM rate_limits WHERE key = $1', [`ip:${tag}-${k}`]).then((r) => r.rowCount);
    await stack.db.pool.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 1, $2), ($3, 1, $4)', [
      `ip:${tag}-old`,
      Date.now() - 2 * 3600_000,
      `ip:${tag}-recent`,
      Date.now() - 30 * 60_000,
    ]);
    await waitFor(
      () => rows('old'),
      (n) => n === 0,
    );
    expect(await rows('recent')).toBe(1);
  } finally {
    limiter.close();
  }
});
