import { cpSync, mkdtempSync, appendFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DEFAULT_MIGRATIONS_DIR, migrate, MigrationError } from '@svc/db';

const adminUrl = process.env.DATABASE_URL!;
const dbName = `svc_migrate_${process.pid}_${Date.now()}`;
const url = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

async function sql(connectionString: string, text: string) {
  const c = new Client({ connectionString });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  await sql(adminUrl, `CREATE DATABASE ${dbName}`);
});
afterAll(async () => {
  await sql(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
});

describe('migration runner', () => {
  it('applies every migration to a fresh database and records it as Prisma does', async () => {
    const { applied } = await migrate(url);
    expect(applied.length).toBeGreaterThanOrEqual(1);
    expect(applied[0]).toMatch(/^\d{14}_init$/);
    const rows = await sql(
      url,
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(applied);
    expect(rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].finished_at).toBeInstanceOf(Date);
    const tables = await sql(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.map((t) => t.tablename)).toEqual(
      expect.arrayContaining(['workspaces', 'api_keys', 'workflows', 'runs', 'run_steps', 'reviews', 'idempotency_keys', 'secrets']),
    );
  });

  it('is a no-op when run again, also concurrently', async () => {
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    expect(results.map((r) => r.applied)).toEqual([[], [], []]);
  });

  it('refuses to go on when an applied migration file was changed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-migrations-'));
    try {
      cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
      const [first] = (await sql(url, 'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name')).map(
        (r) => r.migration_name,
      );
      appendFileSync(path.join(dir, first, 'migration.sql'), '\n-- edited after the fact\n');
      await expect(migrate(url, dir)).rejects.toThrow(MigrationError);
      await expect(migrate(url, dir)).rejects.toThrow(/changed after it was applied/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-migrations-'));
    try {
      cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
      const bad = path.join(dir, '29991231000000_broken');
      require('node:fs').mkdirSync(bad);
      require('node:fs').writeFileSync(path.join(bad, 'migration.sql'), 'CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n');
      await expect(migrate(url, dir)).rejects.toThrow(/29991231000000_broken failed/);
      const tables = await sql(url, "SELECT tablename FROM pg_tables WHERE tablename = 'half_done'");
      expect(tables).toEqual([]);
      const recorded = await sql(url, "SELECT 1 FROM _prisma_migrations WHERE migration_name = '29991231000000_broken'");
      expect(recorded).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the slot functions', () => {
  const file = path.join(DEFAULT_MIGRATIONS_DIR, '..', 'functions', 'slots.sql');
  /** Every svc_ function's definition in the migrated database, by name. */
  const definitions = async () =>
    Object.fromEntries(
      (
        await sql(
          url,
          "SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname LIKE 'svc\\_%' ORDER BY 1",
        )
      ).map((r) => [r.proname as string, r.def as string]),
    );

  it('are in the database exactly as prisma/functions/slots.sql defines them, and no others of theirs', async () => {
    await migrate(url);
    const text = require('node:fs').readFileSync(file, 'utf8') as string;
    const named = [...text.matchAll(/CREATE OR REPLACE FUNCTION (svc_\w+)/g)].map((m) => m[1]).sort();
    const before = await definitions();
    // Defining them again changes nothing: the migrations left exactly the file's definitions.
    await sql(url, text);
    const after = await definitions();
    expect(after).toEqual(before);
    // Every slot function the database holds is in the file (none is left over from an older design).
    expect(Object.keys(before).filter((name) => /slot/.test(name))).toEqual(named.filter((name) => /slot/.test(name)));
  });
});
