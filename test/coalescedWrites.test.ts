import type { EventEmitter } from 'node:events';
import type { PoolClient } from 'pg';
import { createDb, inOrder, Prisma, rowsOf } from '@svc/db';
import type { DbHandle } from '@svc/db';

/**
 * Statements asked for on one connection in one turn of the event loop reach its socket in one
 * write (packages/db coalescedWrites.ts), on the pool's connections and on the pipelined lane's,
 * against the real PostgreSQL.
 */
let db: DbHandle;
/** Writes that reached each connection's socket (its _write/_writev), in chunks. */
const writes: number[][] = [];

/** Counts the socket writes of a connection from now on. */
function countWrites(stream: { _write: (...a: unknown[]) => void; _writev?: (chunks: unknown[], cb: unknown) => void }): void {
  const log: number[] = [];
  writes.push(log);
  const write = stream._write.bind(stream);
  const writev = stream._writev?.bind(stream);
  stream._write = (...a: unknown[]) => {
    log.push(1);
    write(...a);
  };
  if (writev)
    stream._writev = (chunks: unknown[], cb: unknown) => {
      log.push(chunks.length);
      writev(chunks, cb);
    };
}
const streamOf = (client: unknown) => (client as { connection: { stream: Parameters<typeof countWrites>[0] } }).connection.stream;

beforeAll(async () => {
  db = createDb(process.env.DATABASE_URL!, { max: 1 });
  db.pool.on('connect', (client: PoolClient) => countWrites(streamOf(client)));
  db.lane.on('connect', (client: EventEmitter) => countWrites(streamOf(client)));
});
afterAll(() => db.close());
beforeEach(() => {
  for (const log of writes) log.length = 0;
});

const select = (n: number) => Prisma.sql`SELECT ${n}::int AS n`;
const total = () => writes.reduce((sum, log) => sum + log.length, 0);

it("sends a transaction's statements sent together in one write, BEGIN with the first", async () => {
  const out = await db.sql.transaction(async (tx) => {
    const [first] = await rowsOf<{ n: number }>(tx, select(1));
    const rest = await inOrder(
      tx,
      () => rowsOf<{ n: number }>(tx, select(2)),
      () => rowsOf<{ n: number }>(tx, select(3)),
      () => rowsOf<{ n: number }>(tx, select(4)),
    );
    return [first, ...rest.map(([r]) => r)].map((r) => r.n);
  });
  expect(out).toEqual([1, 2, 3, 4]);
  // [BEGIN, the first statement], [the three sent together], [COMMIT]: each in one write of its
  // messages (a statement's own are several).
  const log = writes.find((l) => l.length > 0)!;
  expect(log).toHaveLength(3);
  expect(log[1]).toBeGreaterThanOrEqual(3 * 3);
});

it('sends the statements asked for together on the pipelined lane in one write per connection', async () => {
  await Promise.all([1, 2].map((n) => db.sql.rows(select(n)))); // both lane connections open
  for (const log of writes) log.length = 0;
  const out = await Promise.all(Array.from({ length: 20 }, (_, i) => db.sql.rows<{ n: number }>(select(i))));
  expect(out.map(([r]) => r.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  expect(total()).toBe(2);

  // One at a time, each goes out on its own, in its own turn.
  for (let i = 0; i < 3; i++) expect(await db.sql.rows<{ n: number }>(select(i))).toEqual([{ n: i }]);
  expect(total()).toBe(2 + 3);
});
