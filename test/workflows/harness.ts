// Runs the real run workflow on the integration Temporal dev server, with fake activities: each
// test gets a Worker of its own (own task queue) whose activities are jest functions.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { validateDefinition } from '@svc/domain';
import { RUN_WORKFLOW_TYPE, waitForSettleUpdate } from '@svc/temporal';
import type { RunActivities, RunStatus, RunWorkflowInput } from '@svc/temporal';
import { QUEUED_HISTORY_LIMIT } from '../../temporal/workflows/run/slots';
export { historyShape } from './history';
import { quietTemporalLogs } from '../helpers/stack';
import { bundleWorkflows } from '../helpers/workflowBundle';

/**
 * The activities the run workflow calls, and what their fakes answer unless a test says
 * otherwise: every step succeeds, every slot is free.
 */
const DEFAULTS = {
  claimSlot: async () => ({ granted: true }),
  beginStep: async () => ({ skipped: false }),
  executeStep: async () => ({ status: 'succeeded' }),
  openReview: async () => ({ skipped: false }),
  notifyReviewers: async () => ({ sent: 1 }),
  resolveReview: async (a) => ({
    decision: a.decision,
    decided_by: a.decidedBy,
    decided_at: '2026-01-01T00:00:00.000Z',
    comment: a.comment,
  }),
  finishStep: async () => undefined,
  skipSteps: async () => undefined,
  finishRun: async (a) => ({ status: a.status }),
} satisfies Partial<Record<keyof RunActivities, (args: any) => Promise<unknown>>>;
type Activity = keyof typeof DEFAULTS;
export type Fakes = Record<Activity, jest.Mock>;

export interface WorkerContext {
  client: Client;
  fakes: Fakes;
  /** Names of the activities called, in order (the mail to reviewers left out: it runs beside the run). */
  calls: () => Activity[];
  /** Starts the run workflow (RUN_WORKFLOW_TYPE, or `type`) for this definition document; the workflow id is the run id. */
  start(document: unknown, type?: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
}

export function workflowHarness() {
  let code: string;
  let connection: NativeConnection;
  let clientConnection: Connection;
  let client: Client;
  beforeAll(async () => {
    quietTemporalLogs();
    const workflowsPath = path.resolve(__dirname, '../../temporal/workflows/index.ts');
    code = await bundleWorkflows(workflowsPath);
    connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    clientConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    client = new Client({ connection: clientConnection, namespace: process.env.TEMPORAL_NAMESPACE });
  });
  afterAll(async () => {
    await clientConnection?.close();
    await connection?.close();
  });

  /** Runs `body` while a worker with these fake activity implementations serves its task queue. */
  async function withWorker<T>(
    impl: Partial<Record<Activity, (args: any) => Promise<unknown>>>,
    body: (ctx: WorkerContext) => Promise<T>,
  ): Promise<T> {
    const taskQueue = `wf-unit-${randomBytes(4).toString('hex')}`;
    const order: Activity[] = [];
    const fakes = {} as Fakes;
    for (const name of Object.keys(DEFAULTS) as Activity[]) {
      fakes[name] = jest.fn(async (args: unknown) => {
        order.push(name);
        return (impl[name] ?? DEFAULTS[name])(args);
      });
    }
    // As the real activity: a step asked to `claim` first takes the run's slot through the
    // claimSlot fake (so it is counted and ordered as one), and does not run without one.
    const step = fakes.executeStep;
    fakes.executeStep = jest.fn(async (args: { claim?: unknown }) => {
      if (args.claim && !((await fakes.claimSlot(args.claim)) as { granted: boolean }).granted) return { status: 'queued' };
      return step(args);
    });
    const worker = await Worker.create({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE,
      taskQueue,
      workflowBundle: { code },
      activities: fakes,
    });
    const start = async (document: unknown, type = RUN_WORKFLOW_TYPE) => {
      const runId = `run_${randomBytes(12).toString('hex')}`;
      const input: RunWorkflowInput = {
        runId,
        temporalWorkflowId: runId,
        workspaceId: 'ws_unit',
        workflowId: 'wf_unit',
        workflowVersion: 1,
        definition: validateDefinition(document),
      };
      return client.workflow.start(type, { taskQueue, workflowId: runId, args: [input] });
    };
    const calls = () => order.filter((n) => n !== 'notifyReviewers');
    return worker.runUntil(body({ client, fakes, calls, start }));
  }
  return { withWorker };
}

/**
 * Grows the history of a run waiting for a slot with waits that time out (each adds at most 10 events) until
 * it continues as new; returns how many were sent. A batch never reaches the limit while part
 * of it may still be on its way, and the last few go one at a time: the continue-as-new then
 * happens in the workflow task that completes one, so no wait is ever sent to a closed run.
 */
export async function growHistory(run: WorkflowHandle, answer: RunStatus = 'queued'): Promise<number> {
  let sent = 0;
  for (;;) {
    const { status, historyLength } = await run.describe();
    if (status.name !== 'RUNNING') return sent;
    const batch = Math.max(1, Math.min(10, Math.floor((QUEUED_HISTORY_LIMIT - historyLength) / 10)));
    const answers = await Promise.all(
      Array.from({ length: batch }, () => run.executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs: 1 }] })),
    );
    expect(answers).toEqual(Array(batch).fill(answer));
    sent += batch;
  }
}
