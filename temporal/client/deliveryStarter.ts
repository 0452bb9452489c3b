import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db, SqlSource } from '@svc/db';
import { deliveryWorkflowId, markDeliveryDispatched, undispatchedDeliveries } from '@svc/domain';
import type { DeliveryRef } from '@svc/domain';
import type { DeliveryWorkflowInput } from '../shared/deliveryTypes';
import { SA_WORKSPACE_ID } from '../shared/searchAttributes';
import type { deliveryWorkflowV3 } from '../workflows/deliveryWorkflow';

export interface DeliveryStarter {
  /**
   * Starts the workflow of one delivery generation (idempotent) and marks it dispatched. `eager`:
   * its first workflow task came back with the start and went straight to this process's worker.
   */
  start(ref: DeliveryRef): Promise<{ eager: boolean }>;
}

export interface DeliveryStarterOptions {
  client: Client;
  /** Where the start is marked (a named statement on the worker's pool). */
  db: SqlSource;
  taskQueue: string;
  /** WEBHOOK_RETRY_SCHEDULE (ms). */
  scheduleMs: number[];
  /** WEBHOOK_TIMEOUT_MS. */
  attemptTimeoutMs: number;
  /**
   * Ask for eager start: `client` is on the NativeConnection of a Worker of this process that
   * serves `taskQueue`. The server then hands the workflow's first task back in the start's answer,
   * and the SDK's core gives it to that Worker when it has a free slot: no wait in the task queue
   * behind a busy matching service and no poll round trip. With no free slot, or no such Worker
   * running, the start is an ordinary one. Only a NativeConnection can ask (the SDK refuses it on
   * grpc-js).
   */
  eager: boolean;
}

/**
 * One workflow per (event, endpoint) delivery generation, with the delivery id as workflow id
 * (`<id>-r<n>` after manual retries). REJECT_DUPLICATE: a repeated start, even after the
 * workflow has finished, never runs the delivery a second time; "already started" is success.
 */
export function createDeliveryStarter(opts: DeliveryStarterOptions): DeliveryStarter {
  return {
    async start(ref) {
      const input: DeliveryWorkflowInput = {
        deliveryId: ref.id,
        generation: ref.generation,
        scheduleMs: opts.scheduleMs,
        attemptTimeoutMs: opts.attemptTimeoutMs,
      };
      let eager = false;
      try {
        const handle = await opts.client.workflow.start<typeof deliveryWorkflowV3>('deliveryWorkflowV3', {
          workflowId: deliveryWorkflowId(ref.id, ref.generation),
          taskQueue: opts.taskQueue,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: [{ key: SA_WORKSPACE_ID, value: ref.workspaceId }],
          requestEagerStart: opts.eager,
        });
        eager = handle.eagerlyStarted;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      await markDeliveryDispatched(opts.db, ref);
      return { eager };
    },
  };
}

export interface DeliveryRelay {
  /** Runs one pass now (tests, start-up); resolves with the number of deliveries started. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The outbox relay: every `intervalMs`, starts the workflows of deliveries recorded without
 * one (events raised by the CLI, manual retries, and any start interrupted by a crash). Every
 * worker runs one; starts are idempotent, so several relays never deliver twice.
 */
export function startDeliveryRelay(opts: {
  prisma: Db;
  starter: DeliveryStarter;
  intervalMs: number;
  logger: { warn(obj: object, msg: string): void };
}): DeliveryRelay {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> = Promise.resolve(0);

  async function pass(): Promise<number> {
    let started = 0;
    try {
      const due = await undispatchedDeliveries(opts.prisma, 100);
      for (const ref of due) {
        if (stopped) break;
        try {
          await opts.starter.start(ref);
          started++;
        } catch (err) {
          opts.logger.warn({ deliveryId: ref.id, err: (err as Error).message }, 'could not start a webhook delivery workflow; will retry');
        }
      }
    } catch (err) {
      opts.logger.warn({ err: (err as Error).message }, 'webhook delivery relay pass failed; will retry');
    }
    return started;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().finally(schedule);
    }, opts.intervalMs);
  }
  running = pass().finally(schedule);

  return {
    runOnce() {
      running = running.then(pass, pass);
      return running;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => 0);
    },
  };
}
