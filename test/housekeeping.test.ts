import { reconcilerScheduleId } from '@svc/temporal';
import { waitFor } from './helpers/fixtures';
import { startGreetStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// Issue 14, housekeeping: the reconciler Schedule sweeps rows that can no longer matter.
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
