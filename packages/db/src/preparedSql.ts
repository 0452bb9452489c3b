import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { Prisma, PrismaClient } from './generated/prisma/client';
import type { PipelinedLane } from './pipelinedLane';

/**
 * The hot paths' statements (every API request's key check, `GET /runs/{id}`, a run's writes in
 * the worker), run straight on the pool as named statements: PostgreSQL parses and plans each
 * once per connection, not on every call, and Prisma's per-query work is skipped. Queries are
 * Prisma's `Prisma.sql` templates, so the same text serves both
 * ways (rowsOf). A statement outside a transaction goes down the pipelined lane when there is one
 * (pipelinedLane.ts).
 */
export class PreparedSql {
  constructor(
    private readonly db: Pool | PoolClient,
    private readonly lane?: PipelinedLane,
    private readonly names = new Map<string, string>(),
  ) {}

  /** Set once the transaction's COMMIT has gone out with its last statements. */
  private committed = false;

  async rows<T>(query: Prisma.Sql): Promise<T[]> {
    const statement = { name: this.nameOf(query.text), text: query.text, values: query.values };
    const result = await (this.lane ? this.lane.query(statement) : this.db.query(statement));
    return result.rows as T[];
  }

  /** Runs `fn` in a transaction on one connection (inside one already: in that one). */
  async transaction<T>(fn: (tx: PreparedSql) => Promise<T>): Promise<T> {
    if (!isPool(this.db)) return fn(this);
    const client = await this.db.connect();
    let broken: Error | undefined;
    try {
      // The pool's connections are pipelined (client.ts): BEGIN goes out with the transaction's
      // first statement instead of a round trip ahead of it.
      const tx = new PreparedSql(client, undefined, this.names);
      const [, out] = await Promise.all([client.query('BEGIN'), fn(tx)]);
      if (!tx.committed) await commit(client);
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
      throw err;
    } finally {
      // A connection that could not even roll back is dropped, not reused.
      client.release(broken);
    }
  }

  /**
   * The transaction's last statements, sent as inOrder sends them, with its COMMIT right behind
   * (see inOrderThenCommit). On a pool (no transaction) they are inOrder's.
   */
  async lastInTransaction<T extends readonly unknown[]>(calls: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
    const sent = calls.map((call) => call());
    if (isPool(this.db)) return (await Promise.all(sent)) as unknown as T;
    this.committed = true;
    const committing = commit(this.db);
    // Handled here, so its rejection is never unhandled while a statement's failure is thrown.
    committing.catch(() => undefined);
    // A statement's own failure is the one to throw, not the ROLLBACK that followed from it.
    const out = await Promise.all(sent);
    await committing;
    return out as unknown as T;
  }

  /** One name per statement text (a template's text never changes, so the map stays small). */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/** COMMIT, which a transaction that has failed answers with ROLLBACK: that is a failure too. */
async function commit(client: PoolClient): Promise<void> {
  const { command } = await client.query('COMMIT');
  if (command !== 'COMMIT') throw new Error(`The transaction was not committed (${command})`);
}

function isPool(db: Pool | PoolClient): db is Pool {
  return 'totalCount' in db;
}

/** What a statement can run on: Prisma (also inside its transaction) or the prepared statements. */
export type SqlSource = Pick<PrismaClient, '$queryRaw'> | Prisma.TransactionClient | PreparedSql;

export function rowsOf<T>(db: SqlSource, query: Prisma.Sql): Promise<T[]> {
  return db instanceof PreparedSql ? db.rows<T>(query) : db.$queryRaw<T[]>(query);
}

/**
 * Statements of one transaction (or none) that do not wait on each other's answers: each call
 * is made in order and must send its statement before it first awaits (rowsOf does), so on
 * prepared statements they go out together, executed in that order, and their answers come back
 * in one round trip (the pool's connections and the lane are pipelined). On Prisma, whose
 * interactive transactions promise no order to concurrent queries, they run one after another.
 */
export async function inOrder<T extends readonly unknown[]>(db: SqlSource, ...calls: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  if (db instanceof PreparedSql) return (await Promise.all(calls.map((call) => call()))) as unknown as T;
  const out: unknown[] = [];
  for (const call of calls) out.push(await call());
  return out as unknown as T;
}

/**
 * A transaction's last statements, as inOrder runs them; on prepared statements the COMMIT goes
 * out right behind them, so it costs no round trip of its own. `pg` ends each statement with a
 * Sync: should one fail, the ones after it fail as well (the transaction is aborted), the COMMIT
 * answers ROLLBACK and nothing is committed; the failure is thrown. Nothing may be sent in the
 * transaction after them, and the caller must decide everything that could undo it before.
 */
export function inOrderThenCommit<T extends readonly unknown[]>(
  db: SqlSource,
  ...calls: { [K in keyof T]: () => Promise<T[K]> }
): Promise<T> {
  return db instanceof PreparedSql ? db.lastInTransaction<T>(calls) : inOrder<T>(db, ...calls);
}

/**
 * A transaction on either: Prisma's interactive one, or one connection of the pool. Given a
 * transaction already (a Prisma transaction client, or prepared statements on one connection),
 * `fn` runs inside it.
 */
export function inTransaction<T>(
  db: PrismaClient | Prisma.TransactionClient | PreparedSql,
  fn: (tx: Prisma.TransactionClient | PreparedSql) => Promise<T>,
): Promise<T> {
  if (db instanceof PreparedSql) return db.transaction(fn);
  // A transaction client has no $transaction of its own.
  const client = db as Partial<Pick<PrismaClient, '$transaction'>>;
  return typeof client.$transaction === 'function' ? (db as PrismaClient).$transaction(fn) : fn(db);
}
