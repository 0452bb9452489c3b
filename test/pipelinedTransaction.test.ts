import { createDb, inOrder, inOrderThenCommit, Prisma, rowsOf } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { recordWire } from './helpers/wire';

/**
 * Transactions on the pool's pipelined connections (packages/db preparedSql.ts) against the real
 * PostgreSQL: BEGIN goes out with the first statement, statements sent together with inOrder run
 * in their order, one failing among them undoes the whole transaction, and inOrderThenCommit sends
 * the COMMIT behind the last ones, which commits nothing when one of them fails.
 */
const TABLE = `pipelined_tx_test_${process.pid}`;
const table = Prisma.raw(TABLE);

let db: DbHandle;
/** What the pool's connections wrote to PostgreSQL and were answered, in order (recordWire). */
let wire: string[];

beforeAll(async () => {
  // One connection, so every transaction here reuses it.
  db = createDb(process.env.DATABASE_URL!, { max: 1 });
  wire = recordWire(db);
  await db.pool.query(`CREATE TABLE ${TABLE} (n int PRIMARY KEY)`);
});
afterAll(async () => {
  await db.pool.query(`DROP TABLE ${TABLE}`);
  await db.close();
});
beforeEach(async () => {
  await db.pool.query(`TRUNCATE ${TABLE}`);
  wire.length = 0;
});

const insert = (n: number) => Prisma.sql`INSERT INTO ${table} (n) VALUES (${n}) RETURNING n`;
const count = Prisma.sql`SELECT count(*)::int AS count FROM ${table}`;
const stored = async () => (await db.pool.query<{ n: number }>(`SELECT n FROM ${TABLE} ORDER BY n`)).rows.map((r) => r.n);

/** Inserts 1, then sends the insert of 2 and a count together with `send`: what the count saw. */
const insertThenCount = (send: typeof inOrder) =>
  db.sql.transaction(async (tx) => {
    await rowsOf(tx, insert(1));
    const [, [after]] = await send(
      tx,
      () => rowsOf(tx, insert(2)),
      () => rowsOf<{ count: number }>(tx, count),
    );
    return after.count;
  });

/** insertThenCount's wire up to its batch: BEGIN with the first insert, answered; then the batch sent. */
const INSERT_THEN_BATCH_SENT = ['send BEGIN', 'send INSERT', 'answer BEGIN', 'answer INSERT', 'send INSERT', 'send SELECT'];

/** Inserts 1, then sends the insert of 2, a division by zero and the insert of 3 together with `send`. */
const failingTogether = (send: typeof inOrder) =>
  db.sql.transaction(async (tx) => {
    await rowsOf(tx, insert(1));
    return send(
      tx,
      () => rowsOf(tx, insert(2)),
      () => rowsOf(tx, Prisma.sql`SELECT 1 / ${0}::int`),
      () => rowsOf(tx, insert(3)),
    );
  });

it('sends BEGIN with the first statement, and statements given to inOrder together, each run in its order', async () => {
  const seen = await insertThenCount(inOrder);
  // The count sent behind the insert sees it: PostgreSQL runs a connection's statements in order.
  expect(seen).toBe(2);
  expect(await stored()).toEqual([1, 2]);
  expect(wire).toEqual([...INSERT_THEN_BATCH_SENT, 'answer INSERT', 'answer SELECT', 'send COMMIT', 'answer COMMIT']);
});

it('undoes the whole transaction when one statement sent together fails, and the connection serves the next one', async () => {
  await expect(failingTogether(inOrder)).rejects.toMatchObject({ code: '22012' });
  expect(await stored()).toEqual([]);
  // Rolled back as soon as the failure is known, so after the answers to the statements ahead of
  // the failing one. The failing statement's own ReadyForQuery may come in the same read as its
  // error or in the next, so it and the ROLLBACK's sending can come in either order.
  const secondInsertAnswered = wire.indexOf('answer INSERT', wire.indexOf('answer INSERT') + 1);
  expect(secondInsertAnswered).toBeGreaterThan(0);
  expect(wire.indexOf('send ROLLBACK')).toBeGreaterThan(secondInsertAnswered);
  expect(wire.filter((w) => w.startsWith('answer')).at(-1)).toBe('answer ROLLBACK');
  expect(wire.filter((w) => w === 'answer INSERT')).toHaveLength(3);

  // The same (only) connection, back in the pool in a clean state.
  await db.sql.transaction(async (tx) => rowsOf(tx, insert(4)));
  expect(await stored()).toEqual([4]);
});

it('undoes a transaction whose first statement fails while BEGIN is still unanswered', async () => {
  const failed = db.sql.transaction(async (tx) => rowsOf(tx, Prisma.sql`INSERT INTO ${table} (n) VALUES (${null}::int)`));
  await expect(failed).rejects.toMatchObject({ code: '23502' });
  expect(wire.slice(0, 3)).toEqual(['send BEGIN', 'send INSERT', 'answer BEGIN']);
  await db.sql.transaction(async (tx) => rowsOf(tx, insert(5)));
  expect(await stored()).toEqual([5]);
});

it('sends the COMMIT behind the last statements given to inOrderThenCommit, and commits them', async () => {
  expect(await insertThenCount(inOrderThenCommit)).toBe(2);
  expect(await stored()).toEqual([1, 2]);
  expect(wire).toEqual([...INSERT_THEN_BATCH_SENT, 'send COMMIT', 'answer INSERT', 'answer SELECT', 'answer COMMIT']);
});

it('commits nothing when a statement sent ahead of the COMMIT fails, and the connection serves the next one', async () => {
  await expect(failingTogether(inOrderThenCommit)).rejects.toMatchObject({ code: '22012' });
  // The COMMIT was on the wire before the failure was known; the aborted transaction answered it
  // with ROLLBACK.
  expect(wire.indexOf('send COMMIT')).toBeGreaterThan(0);
  expect(wire.indexOf('send COMMIT')).toBeLessThan(wire.indexOf('answer SELECT'));
  expect(await stored()).toEqual([]);
  await db.sql.transaction(async (tx) => inOrderThenCommit(tx, () => rowsOf(tx, insert(4))));
  expect(await stored()).toEqual([4]);
});

it('fails when the COMMIT itself is answered with a rollback (a failure the transaction swallowed)', async () => {
  const failed = db.sql.transaction(async (tx) => {
    await rowsOf(tx, Prisma.sql`SELECT 1 / ${0}::int`).catch(() => undefined);
    return inOrderThenCommit(tx, () => rowsOf(tx, Prisma.sql`SELECT 1`).catch(() => undefined));
  });
  await expect(failed).rejects.toThrow('The transaction was not committed (ROLLBACK)');
  expect(await stored()).toEqual([]);
});

it('runs the calls one after another on Prisma, whose transactions promise no order to concurrent queries', async () => {
  const order: string[] = [];
  const call = (tx: Prisma.TransactionClient, name: string, n: number) => async () => {
    order.push(`start ${name}`);
    const rows = await rowsOf<{ n: number }>(tx, insert(n));
    order.push(`end ${name}`);
    return rows[0].n;
  };
  const out = await db.prisma.$transaction((tx) => inOrder(tx, call(tx, 'a', 6), call(tx, 'b', 7)));
  expect(out).toEqual([6, 7]);
  expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  // inOrderThenCommit too; Prisma commits when the transaction's function returns.
  order.length = 0;
  await db.prisma.$transaction((tx) => inOrderThenCommit(tx, call(tx, 'c', 8), call(tx, 'd', 9)));
  expect(order).toEqual(['start c', 'end c', 'start d', 'end d']);
  expect(await stored()).toEqual([6, 7, 8, 9]);
});
