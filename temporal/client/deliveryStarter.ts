import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db, SqlSource } from '@svc/db';
import { deliveryWorkflowId, makeDeliveriesDue, markDeliveriesDispatched, undispatchedDeliveries } from '@svc/domain';
import type { DeliveryRef } from '@svc/domain';
import type { DeliveryWorkflowInput } from '../shared/deliveryTypes';
import { SA_WORKSPACE_ID } from '../shared/searchAttributes';
import type { deliveryWorkflow } from '../workflows/deliveryWorkflow';
import { withDeadline } from './connection';

export interface DeliveryStarter {
  /**
   * Starts the workflows of delivery generations (idempotent) within DeliveryStartBounds, and marks
   * the started ones dispatched in one statement. A start that fails, passes its deadline or is not
   * begun within the budget fails nothing: it is left in the outbox, due at once, for the relay.
   */
  startAll(refs: DeliveryRef[]): Promise<DeliveryStarts>;
}

export interface DeliveryStarts {
  started: number;
  /** Of those, the ones whose first workflow task came back with the start, straight to this process's worker. */
  eager: number;
  /** Not started: the relay's. */
  left: DeliveryRef[];
  /** Why the first of them failed, when one did. */
  error?: string;
}

/** How a batch of starts (an event's fan-out, a relay pass) is bounded, so it never holds its caller for long. */
export interface DeliveryStartBounds {
  /** Starts in flight at once. */
  concurrency: number;
  /** Each start's deadline (on the Temporal call itself). */
  startTimeoutMs: number;
  /** No start begins this long after the batch began: the relay starts the rest. */
  budgetMs: number;
}

export const DELIVERY_START_BOUNDS: DeliveryStartBounds = { concurrency: 8, startTimeoutMs: 5_000, budgetMs: 5_000 };

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
  /** Default DELIVERY_START_BOUNDS. */
  bounds?: DeliveryStartBounds;
}

/**
 * One workflow per (event, endpoint) delivery generation, with the delivery id as workflow id
 * (`<id>-r<n>` after manual retries). REJECT_DUPLICATE: a repeated start, even after the
 * workflow has finished, never runs the delivery a second time; "already started" is success.
 */
export function createDeliveryStarter(opts: DeliveryStarterOptions): DeliveryStarter {
  const bounds = opts.bounds ?? DELIVERY_START_BOUNDS;

  /** Starts the workflow under the start deadline; true when its first task came back with the start. */
  async function launch(ref: DeliveryRef): Promise<boolean> {
    const input: DeliveryWorkflowInput = {
      deliveryId: ref.id,
      generation: ref.generation,
      scheduleMs: opts.scheduleMs,
      attemptTimeoutMs: opts.attemptTimeoutMs,
    };
    try {
      const handle = await withDeadline(
        opts.client,
        () =>
          opts.client.workflow.start<typeof deliveryWorkflow>('deliveryWorkflow', {
            workflowId: deliveryWorkflowId(ref.id, ref.generation),
            taskQueue: opts.taskQueue,
            args: [input],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            typedSearchAttributes: [{ key: SA_WORKSPACE_ID, value: ref.workspaceId }],
            requestEagerStart: opts.eager,
          }),
        bounds.startTimeoutMs,
      );
      return handle.eagerlyStarted;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  return {
    async startAll(refs) {
      const until = Date.now() + bounds.budgetMs;
      const started: DeliveryRef[] = [];
      const left: DeliveryRef[] = [];
      let eager = 0;
      let error: string | undefined;
      let next = 0;
      // `concurrency` lanes take the refs in turn; none begins a start once the budget is spent.
      const lane = async () => {
        while (next < refs.length) {
          const ref = refs[next++];
          if (Date.now() >= until) {
            left.push(ref);
            continue;
          }
          await launch(ref).then(
            (wasEager) => {
              started.push(ref);
              if (wasEager) eager++;
            },
            (err: Error) => {
              left.push(ref);
              error ??= err.message;
            },
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(bounds.concurrency, refs.length) }, lane));
      if (started.length > 0) await markDeliveriesDispatched(opts.db, started);
      if (left.length > 0) await makeDeliveriesDue(opts.db, left);
      return { started: started.length, eager, left, ...(error ? { error } : {}) };
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
    if (stopped) return 0;
    try {
      const { started, left, error } = await opts.starter.startAll(await undispatchedDeliveries(opts.prisma, 100));
      if (left.length > 0) {
        opts.logger.warn({ notStarted: left.length, err: error }, 'could not start every due webhook delivery workflow; will retry');
      }
      return started;
    } catch (err) {
      opts.logger.warn({ err: (err as Error).message }, 'webhook delivery relay pass failed; will retry');
      return 0;
    }
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
