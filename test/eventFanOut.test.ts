import { createDb, Prisma, rowsOf } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { hasPrefix, markDeliveriesDispatched, newId, recordEventAndDeliveries } from '@svc/domain';
import { recordWire } from './helpers/wire';

/**
 * An event and its deliveries in one statement (webhooks/fanOut.ts), against the real
 * PostgreSQL: the deliveries' ids are made there (svc_new_id, migration
 * 20261126090000_new_id_function) in the application's format, a repeat creates nothing and
 * finds the deliveries not started yet, and the statement is the only one sent.
 */
let db: DbHandle;
let wire: string[];
let workspaceId: string;
beforeAll(async () => {
  db = createDb(process.env.DATABASE_URL!, { max: 1 });
  wire = recordWire(db);
  workspaceId = newId('ws');
  await db.prisma.workspace.create({ data: { id: workspaceId, name: 'Fan-out' } });
});
afterAll(async () => {
  await db.prisma.workspace.delete({ where: { id: workspaceId } });
  await db.close();
});

const ID = /^dlv_[0-9a-z]{24}$/;

it("makes ids in newId's format, every one different, from the whole alphabet", async () => {
  const { rows } = await db.pool.query<{ id: string }>("SELECT svc_new_id('dlv') AS id FROM generate_series(1, 2000)");
  const ids = rows.map((r) => r.id);
  expect(ids.filter((id) => !ID.test(id) || !hasPrefix(id, 'dlv'))).toEqual([]);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids.map((id) => id.slice(4)).join('')).size).toBe(36);
  expect(newId('dlv')).toMatch(ID);
});

it('records the event and a delivery per subscribed, enabled endpoint in one statement; a repeat finds the ones not started', async () => {
  const endpoint = async (eventTypes: string[], status = 'enabled') =>
    (
      await db.prisma.webhookEndpoint.create({
        data: { id: newId('we'), workspaceId, url: 'https://receiver.example/hook', eventTypes, status, secretEnc: 'sealed' },
      })
    ).id;
  const subscribed = [await endpoint(['run.succeeded']), await endpoint(['run.failed', 'run.succeeded'])];
  await endpoint(['run.failed']);
  await endpoint(['run.succeeded'], 'disabled');
  const args = { workspaceId, type: 'run.succeeded' as const, dedupeKey: `${workspaceId}:fan-out`, data: { n: 1 } };
  // Not due for the outbox relay while this test runs.
  const publish = () => db.sql.transaction((tx) => recordEventAndDeliveries(tx, args, { dispatchDelayMs: 3_600_000 }));

  wire.length = 0;
  const first = await publish();
  expect(wire.filter((w) => w.startsWith('send'))).toEqual(['send BEGIN', 'send WITH', 'send COMMIT']);
  expect(first.created).toBe(true);
  expect(first.deliveries.map((d) => [ID.test(d.id), d.workspaceId, d.generation])).toEqual([
    [true, workspaceId, 0],
    [true, workspaceId, 0],
  ]);
  const stored = await db.prisma.webhookDelivery.findMany({ where: { eventId: first.eventId }, orderBy: { endpointId: 'asc' } });
  expect(stored.map((d) => d.endpointId)).toEqual([...subscribed].sort());
  expect(stored.map((d) => d.id).sort()).toEqual(first.deliveries.map((d) => d.id).sort());

  const again = await publish();
  expect(again).toEqual({ eventId: first.eventId, created: false, deliveries: expect.arrayContaining(first.deliveries) });
  expect(again.deliveries).toHaveLength(2);
  await markDeliveriesDispatched(db.sql, [first.deliveries[0]]);
  expect((await publish()).deliveries).toEqual([first.deliveries[1]]);
  expect(await db.prisma.event.count({ where: { dedupeKey: args.dedupeKey } })).toBe(1);
  expect(await db.prisma.webhookDelivery.count({ where: { eventId: first.eventId } })).toBe(2);
});

it('records an event no endpoint subscribes to with no deliveries', async () => {
  const out = await recordEventAndDeliveries(db.sql, {
    workspaceId,
    type: 'review.decided',
    dedupeKey: `${workspaceId}:nobody`,
    data: { n: 2 },
  });
  expect(out).toEqual({ eventId: expect.stringMatching(/^evt_/), created: true, deliveries: [] });
});

it("stamps an event with the moment it is written, not its transaction's start", async () => {
  const out = await db.sql.transaction(async (tx) => {
    const [start] = await rowsOf<{ at: Date }>(tx, Prisma.sql`SELECT now() AS at`);
    // What a run's ending may wait for before its event: the workspace's slot lock.
    await rowsOf(tx, Prisma.sql`SELECT pg_sleep(0.3)`);
    const recorded = await recordEventAndDeliveries(tx, {
      workspaceId,
      type: 'review.decided',
      dedupeKey: `${workspaceId}:clock`,
      data: {},
    });
    return { start: start.at, ...recorded };
  });
  const event = await db.prisma.event.findUniqueOrThrow({ where: { id: out.eventId } });
  expect(event.createdAt.getTime() - out.start.getTime()).toBeGreaterThanOrEqual(300);
});
