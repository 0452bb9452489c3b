#!/usr/bin/env node
/**
 * The floor's own worker process, started by the bench (stack.ts) beside svc's worker:
 * `node floor/worker.js --address HOST:PORT --namespace NS --task-queue Q --delivery-task-queue D`,
 * with the webhook signing secret in FLOOR_WEBHOOK_SECRET and the durable floor's database in
 * DATABASE_URL (durableStore.ts). SDK defaults throughout, as svc's worker (apps/worker
 * createWorkers) runs with them: one Worker for the runs, one for the webhook deliveries on
 * their own task queue (as svc's), sharing one workflow bundle built from source at startup,
 * and a Client through which a run's activity starts its delivery workflow.
 * The Workers stop by themselves on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { Pool } from 'pg';
import { floorActivities } from './activities';
import { createApiFloorActivities } from './apiStore';
import { createFloorDeliveryActivities } from './deliveryActivities';
import { createDurableDeliveryActivities } from './durableDelivery';
import { createDurableFloorActivities } from './durableStore';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      address: { type: 'string' },
      namespace: { type: 'string' },
      'task-queue': { type: 'string' },
      'delivery-task-queue': { type: 'string' },
    },
  });
  const { address, namespace, 'task-queue': taskQueue, 'delivery-task-queue': deliveryTaskQueue } = values;
  const { FLOOR_WEBHOOK_SECRET: secret, DATABASE_URL: databaseUrl } = process.env;
  if (!address || !namespace || !taskQueue || !deliveryTaskQueue || !secret || !databaseUrl) {
    throw new Error(
      'usage: FLOOR_WEBHOOK_SECRET=… DATABASE_URL=… worker.js --address HOST:PORT --namespace NS --task-queue Q --delivery-task-queue D',
    );
  }
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const [connection, clientConnection] = await Promise.all([NativeConnection.connect({ address }), Connection.connect({ address })]);
  const client = new Client({ connection: clientConnection, namespace });
  const deliveryActivities = createFloorDeliveryActivities({ client, deliveryTaskQueue, secret });
  const durableDelivery = createDurableDeliveryActivities({ pool, client, deliveryTaskQueue, secret });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows') });
  const common = { connection, namespace, workflowBundle };
  const runs = await Worker.create({
    ...common,
    taskQueue,
    activities: {
      ...floorActivities,
      ...createDurableFloorActivities(pool),
      ...createApiFloorActivities(pool),
      greetAndNotify: deliveryActivities.greetAndNotify,
      greetStoredAndNotify: durableDelivery.greetStoredAndNotify,
    },
  });
  const deliveries = await Worker.create({
    ...common,
    taskQueue: deliveryTaskQueue,
    activities: { deliver: deliveryActivities.deliver, deliverStored: durableDelivery.deliverStored },
  });
  process.stdout.write(`floor worker running on ${taskQueue} and ${deliveryTaskQueue}\n`);
  await Promise.all([runs.run(), deliveries.run()]);
  await Promise.all([connection.close(), clientConnection.close(), pool.end()]);
}

main().catch((err) => {
  process.stderr.write(`floor worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
