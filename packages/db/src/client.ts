import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { ClientConfig } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { coalesceWrites } from './coalescedWrites';
import { PipelinedLane } from './pipelinedLane';
import { PreparedSql } from './preparedSql';

/**
 * The pipelined lane's connections (pipelinedLane.ts), beside the pool's. In a probe of `GET
 * /runs/{id}` one and two read alike; two, so one slow statement does not hold up all the others.
 */
const PIPELINED_CONNECTIONS = 2;

export type Db = PrismaClient;

export interface DbHandle {
  prisma: PrismaClient;
  /** The pool behind Prisma, shared with code that needs raw SQL (rate limiter, health checks). */
  pool: Pool;
  /** The pipelined connections behind `sql` (pipelinedLane.ts). */
  lane: PipelinedLane;
  /** Named statements for the hot paths (preparedSql.ts): on the pipelined lane, transactions on the pool. */
  sql: PreparedSql;
  /** The same on pooled connections only: for reads that may be large, which must not hold up the lane. */
  pooledSql: PreparedSql;
  close(): Promise<void>;
}

/**
 * The longest one statement of the pool or the lane may run (PostgreSQL's statement_timeout), so a
 * heavy read or a slow database never holds a connection other requests need for long.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
/** A transaction left idle this long (its process stalled) is ended by PostgreSQL, freeing its locks. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** How much longer than the statement's own deadline the client waits for an answer (a lost network). */
const ANSWER_GRACE_MS = 5_000;

/** The deadlines every pooled and pipelined connection carries. */
function sessionDeadlines(statementTimeoutMs: number): ClientConfig {
  return {
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    query_timeout: statementTimeoutMs + ANSWER_GRACE_MS,
  };
}

/** How every connection of the process reaches the database. */
export function connectionConfig(databaseUrl: string): ClientConfig {
  return { connectionString: databaseUrl, connectionTimeoutMillis: 5_000 };
}

export function createDb(
  databaseUrl: string,
  opts: { max?: number; onError?: (err: Error) => void; statementTimeoutMs?: number } = {},
): DbHandle {
  const connection = { ...connectionConfig(databaseUrl), ...sessionDeadlines(opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS) };
  // Pipelined, so a transaction's statements that do not wait on each other go out together
  // (preparedSql.ts inOrder); one statement at a time, as Prisma sends them, is unchanged.
  const pool = new Pool({ ...connection, max: opts.max ?? 10, pipeline: true });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => opts.onError?.(err));
  pool.on('connect', coalesceWrites);
  // An interactive transaction waits for a pooled connection as long as a statement does (not
  // Prisma's 2 s), and may last as long as its statements' deadline allows.
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    transactionOptions: {
      maxWait: connection.connectionTimeoutMillis,
      timeout: 2 * (opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS),
    },
  });
  const lane = new PipelinedLane(connection, PIPELINED_CONNECTIONS, opts.onError);
  return {
    prisma,
    pool,
    lane,
    sql: new PreparedSql(pool, lane),
    pooledSql: new PreparedSql(pool),
    async close() {
      await prisma.$disconnect();
      await lane.close();
      await pool.end();
    },
  };
}
