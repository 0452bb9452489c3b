import { Client } from 'pg';
import { isDatabaseUnavailable, PipelinedLane } from '@svc/db';
import { waitFor } from './helpers/fixtures';

/**
 * The pipelined lane (packages/db pipelinedLane.ts) against the real PostgreSQL: statements sent
 * without waiting for each other each get their own answer, one failing statement fails alone,
 * and a connection killed under it fails what it had in flight as "database unavailable" and is
 * replaced on the next statement.
 */
const url = process.env.DATABASE_URL!;
const APP = `svc-lane-test-${process.pid}`;

let admin: Client;
let lane: PipelinedLane;

beforeAll(async () => {
  admin = new Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
});
beforeEach(() => {
  lane = new PipelinedLane({ connectionString: url, application_name: APP }, 2);
});
afterEach(async () => {
  await lane.close();
});

const echo = (n: number) => ({ name: 'lane_echo', text: 'SELECT $1::int AS n, pg_backend_pid() AS pid', values: [n] });

/** The backends of this test's lane, as PostgreSQL lists them. */
async function laneBackends(): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APP]);
  return rows.map((r) => r.pid);
}

it('answers 500 statements sent at once each with its own row, over its two connections', async () => {
  const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => lane.query<{ n: number; pid: number }>(echo(i))));
  expect(answers.map((a) => a.rows[0].n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  const pids = new Set(answers.map((a) => a.rows[0].pid));
  expect(pids.size).toBe(2);
  expect((await laneBackends()).sort()).toEqual([...pids].sort());
});

it('fails a failing statement alone: the ones sent around it on the same connection are answered', async () => {
  const sent = [
    lane.query<{ n: number }>(echo(1)),
    lane.query<{ n: number }>(echo(2)),
    lane.query<{ n: number }>({ text: 'SELECT 1 / $1::int AS n', values: [0] }),
    lane.query<{ n: number }>({ text: 'SELECT 1 / $1::int AS n', values: [0] }),
    lane.query<{ n: number }>(echo(5)),
    lane.query<{ n: number }>(echo(6)),
  ];
  const settled = await Promise.allSettled(sent);
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
  expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
  expect((settled[5] as PromiseFulfilledResult<{ rows: Array<{ n: number }> }>).value.rows[0].n).toBe(6);
});

it('a connection killed under it: what it had in flight fails as the database being unavailable, the next statement opens a new one', async () => {
  const before = new Set(
    (await Promise.all([lane.query<{ pid: number }>(echo(1)), lane.query<{ pid: number }>(echo(2))])).map((a) => a.rows[0].pid),
  );
  expect(before.size).toBe(2);

  // Both connections are busy in pg_sleep when their backends are terminated.
  const inFlight = [1, 2].map(() => lane.query({ text: 'SELECT pg_sleep(30)' }));
  await waitFor(
    async () =>
      (
        await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'SELECT pg_sleep%'", [
          APP,
        ])
      ).rows[0].n,
    (n) => n === 2,
  );
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [APP]);
  const failed = await Promise.allSettled(inFlight);
  for (const f of failed) {
    expect(f.status).toBe('rejected');
    expect(isDatabaseUnavailable((f as PromiseRejectedResult).reason)).toBe(true);
  }

  const after = await Promise.all([lane.query<{ n: number; pid: number }>(echo(3)), lane.query<{ n: number; pid: number }>(echo(4))]);
  expect(after.map((a) => a.rows[0].n)).toEqual([3, 4]);
  for (const a of after) expect(before.has(a.rows[0].pid)).toBe(false);
});

it('a database that cannot be reached fails its statements as unavailable, and once closed the lane refuses new ones', async () => {
  const dead = new PipelinedLane({ connectionString: url.replace(/:(\d+)\//, ':1/'), connectionTimeoutMillis: 2_000 }, 2);
  const refused = await dead.query(echo(1)).catch((err: unknown) => err);
  expect(isDatabaseUnavailable(refused)).toBe(true);
  await dead.close();

  await lane.query(echo(1));
  expect(await laneBackends()).toHaveLength(1);
  await lane.close();
  await expect(lane.query(echo(2))).rejects.toThrow('The database handle is closed');
  await waitFor(laneBackends, (pids) => pids.length === 0);
});
