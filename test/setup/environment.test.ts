// Checks what globalSetup.cjs provides to every integration test.
import { Connection } from '@temporalio/client';
import { Client } from 'pg';
import { loadConfig } from '@svc/config';
import { SEARCH_ATTRIBUTES } from '@svc/devstack';

describe('integration test environment', () => {
  it('exports the connection settings through process.env', () => {
    for (const name of [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'SVC_ENCRYPTION_KEY',
      'TEMPORAL_CLI_PATH',
      'SVC_TEST_DATA_DIR',
    ]) {
      expect(process.env[name]).toBeTruthy();
    }
    const cfg = loadConfig(process.env);
    expect(cfg.SVC_ENCRYPTION_KEY?.length).toBe(32);
  });

  it('provides a migrated PostgreSQL database', async () => {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL',
      );
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it('provides a Temporal server with the svc search attributes', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const namespace = process.env.TEMPORAL_NAMESPACE!;
      await connection.workflowService.describeNamespace({ namespace });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
    } finally {
      await connection.close();
    }
  });
});
