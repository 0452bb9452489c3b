import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ensureTemporalCli, findFreePort, startTemporalDevServer } from '@svc/devstack';

/**
 * A file-backed dev server (what `npm start` runs) keeps its SQLite database in write-ahead-log
 * mode (DEV_SERVER_SQLITE_PRAGMAS), and what it committed is there after a restart.
 */

let dir: string;
let cliPath: string;
beforeAll(async () => {
  cliPath = await ensureTemporalCli();
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-devserver-store-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes 18 and 19 of an SQLite file: its write and read format versions, 1 (rollback journal) or 2 (WAL). */
function formatVersions(file: string): number[] {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    return [header[18], header[19]];
  } finally {
    closeSync(fd);
  }
}

async function withServer<T>(dbFile: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const server = await startTemporalDevServer({
    cliPath,
    dbFile,
    port: await findFreePort(),
    headless: true,
    onServerLog: () => undefined,
  });
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection }));
  } finally {
    await connection.close();
    await server.stop();
  }
}

it('keeps its database in WAL mode, and a workflow started before a restart is there after it', async () => {
  const dbFile = path.join(dir, 'temporal.db');
  const workflowId = 'wal-check';
  await withServer(dbFile, async (client) => {
    // No worker polls this queue: the workflow stays open, written to the database only.
    await client.workflow.start('anything', { workflowId, taskQueue: 'nobody-polls' });
  });
  expect(formatVersions(dbFile)).toEqual([2, 2]);

  const status = await withServer(dbFile, async (client) => (await client.workflow.getHandle(workflowId).describe()).status.name);
  expect(status).toBe('RUNNING');
});
