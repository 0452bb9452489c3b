import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/** prisma/migrations at the repo root, from src/ or dist/ alike. */
export const DEFAULT_MIGRATIONS_DIR = path.resolve(__dirname, '../../../prisma/migrations');

// Any constant works; it only has to be the same for every instance running migrations.
const LOCK_KEY = 727_001;

export interface MigrationResult {
  applied: string[];
}

export class MigrationError extends Error {}

/**
 * Applies hand-written migrations in Prisma's layout and records them in Prisma's own
 * `_prisma_migrations` table (sha256 checksum of each file), so `prisma migrate deploy`
 * elsewhere sees the same history. Each migration runs in a transaction; concurrent
 * callers serialize on an advisory lock; an applied file that changed is refused.
 */
export async function migrate(databaseUrl: string, migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<MigrationResult> {
  const migrations = listMigrations(migrationsDir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const recorded = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const m of migrations) {
      const prior = recorded.get(m.name);
      if (prior) {
        if (!prior.finished_at) throw new MigrationError(`migration ${m.name} is recorded as started but not finished; resolve it by hand`);
        if (prior.checksum !== m.checksum)
          throw new MigrationError(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new MigrationError(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    return { applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

function listMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) throw new MigrationError(`migrations directory not found: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d{14}_/.test(d.name))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}
