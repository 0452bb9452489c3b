import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { PreparedSql } from './preparedSql';

export type Db = PrismaClient;

export interface DbHandle {
  prisma: PrismaClient;
  /** The pool behind Prisma, shared with code that needs raw SQL (rate limiter, health checks). */
  pool: Pool;
  /** Named statements on the pool, for the hot paths (preparedSql.ts). */
  sql: PreparedSql;
  close(): Promise<void>;
}

export function createDb(databaseUrl: string, opts: { max?: number; onError?: (err: Error) => void } = {}): DbHandle {
  const pool = new Pool({ connectionString: databaseUrl, max: opts.max ?? 10, connectionTimeoutMillis: 5_000 });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => opts.onError?.(err));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    sql: new PreparedSql(pool),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
