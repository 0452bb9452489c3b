import { Client } from 'pg';
import { migrate } from '@svc/db';

async function adminQuery(text: string): Promise<void> {
  const c = new Client({ connectionString: process.env.DATABASE_URL! });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/**
 * A migrated database of its own on the test PostgreSQL, for a test that must see (or rewrite)
 * every row of a table without meeting other test files' rows.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_${label}_${process.pid}_${Date.now()}`;
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${name}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  await migrate(u.toString());
  return { url: u.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
