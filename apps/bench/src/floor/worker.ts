#!/usr/bin/env node
/**
 * The SDK floor's own worker process, beside svc's worker on the same Temporal server: SDK
 * defaults throughout, one Worker for the runs and one for the deliveries on a task queue of
 * their own (as svc's), sharing one workflow bundle built at start. Configured by FLOOR_ADDRESS,
 * FLOOR_TASK_QUEUE, FLOOR_DELIVERY_TASK_QUEUE and FLOOR_WEBHOOK_SECRET (the default namespace).
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { signalReady } from '@svc/config';
import { createFloorActivities } from './activities';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const [address, taskQueue, deliveryTaskQueue] = ['FLOOR_ADDRESS', 'FLOOR_TASK_QUEUE', 'FLOOR_DELIVERY_TASK_QUEUE'].map(required);
  const [connection, clientConnection] = await Promise.all([NativeConnection.connect({ address }), Connection.connect({ address })]);
  const client = new Client({ connection: clientConnection });
  const activities = createFloorActivities({ client, deliveryTaskQueue, secret: required('FLOOR_WEBHOOK_SECRET') });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows') });
  const workers = await Promise.all(
    [taskQueue, deliveryTaskQueue].map((queue) => Worker.create({ connection, workflowBundle, taskQueue: queue, activities })),
  );
  signalReady();
  // The Workers stop by themselves on SIGTERM/SIGINT.
  await Promise.all(workers.map((w) => w.run()));
  await Promise.all([connection.close(), clientConnection.close()]);
}

main().catch((err) => {
  process.stderr.write(`floor worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
