import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createDb, inOrder, inOrderThenCommit, Prisma, rowsOf } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { findFreePort, startEmbeddedPostgres } from '@svc/devstack';
import type { EmbeddedPostgres } from '@svc/devstack';

/**
 * The database layer over TLS, as a managed PostgreSQL is reached (`sslmode` in DATABASE_URL),
 * against a real PostgreSQL of its own with SSL on: `pg` swaps its socket for a TLS one once the
 * server accepts SSL, and the writes of statements sent together (coalescedWrites.ts) must
 * reach the new one, on the pool's connections and on the pipelined lane's.
 */
let pg: EmbeddedPostgres;
let db: DbHandle;
const dataDir = path.join(process.env.SVC_TEST_DATA_DIR!, `postgres-tls-${process.pid}`);

beforeAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  pg = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), durable: false });
  // A self-signed certificate, owned by the server's user as PostgreSQL requires of its key.
  const [key, cert] = [path.join(pg.dataDir, 'server.key'), path.join(pg.dataDir, 'server.crt')];
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', key, '-out', cert],
    {
      stdio: 'ignore',
    },
  );
  const { uid, gid } = statSync(pg.dataDir);
  for (const file of [key, cert]) chownSync(file, uid, gid);
  chmodSync(key, 0o600);
  const admin = createDb(pg.databaseUrl, { max: 1 });
  try {
    await admin.pool.query('ALTER SYSTEM SET ssl = on');
    await admin.pool.query('SELECT pg_reload_conf()');
  } finally {
    await admin.close();
  }
  db = createDb(`${pg.databaseUrl}?sslmode=no-verify`, { max: 1 });
}, 120_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether the connection running it is encrypted, as PostgreSQL sees it. */
const encrypted = Prisma.sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;

it("runs a transaction's statements sent together, its COMMIT among them, over TLS", async () => {
  const [first, [[ssl], [n]]] = await db.sql.transaction(async (tx) =>
    Promise.all([
      rowsOf<{ n: number }>(tx, Prisma.sql`SELECT 1 AS n`),
      inOrderThenCommit(
        tx,
        () => rowsOf<{ ssl: boolean }>(tx, encrypted),
        () => rowsOf<{ n: number }>(tx, Prisma.sql`SELECT 2 AS n`),
      ),
    ]),
  );
  expect([first[0].n, ssl.ssl, n.n]).toEqual([1, true, 2]);
  // The same connection, reused for the next transaction.
  expect(await db.sql.transaction((tx) => inOrder(tx, () => rowsOf<{ ssl: boolean }>(tx, encrypted)))).toEqual([[{ ssl: true }]]);
});

it('answers statements asked for together, and one at a time, on the pipelined lane over TLS', async () => {
  const together = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      db.sql.rows<{ n: number; ssl: boolean }>(Prisma.sql`SELECT ${i}::int AS n, (${encrypted}) AS ssl`),
    ),
  );
  expect(together.map(([r]) => [r.n, r.ssl])).toEqual(Array.from({ length: 20 }, (_, i) => [i, true]));
  for (let i = 0; i < 3; i++) expect(await db.sql.rows<{ n: number }>(Prisma.sql`SELECT ${i}::int AS n`)).toEqual([{ n: i }]);
});
