#!/usr/bin/env node
/**
 * The floor's own worker process, started by the bench (stack.ts) beside svc's worker:
 * `node floor/worker.js --address HOST:PORT --namespace NS --task-queue Q`. SDK defaults
 * throughout, as svc's worker (apps/worker createWorker) runs with them; the workflows are
 * bundled from source at startup. The Worker stops by itself on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from './activities';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { address: { type: 'string' }, namespace: { type: 'string' }, 'task-queue': { type: 'string' } },
  });
  const { address, namespace, 'task-queue': taskQueue } = values;
  if (!address || !namespace || !taskQueue) throw new Error('usage: worker.js --address HOST:PORT --namespace NS --task-queue Q');
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: floorActivities,
  });
  process.stdout.write(`floor worker running on ${taskQueue}\n`);
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  process.stderr.write(`floor worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
