import type { Client } from '@temporalio/client';
import type { DbHandle } from '@svc/db';
import { findWorkflow, newId } from '@svc/domain';
import type { LaunchRequest } from '@svc/domain';
import { RUN_WORKFLOW_TYPE, runStartOptions } from '@svc/temporal';
import type { runWorkflow } from '@svc/temporal/dist/workflows/runWorkflow';
import { BENCH_INPUT } from './fixtures';
import type { Tenant } from './fixtures';

/**
 * The baselines: the run workflow started straight through the Temporal SDK — the same
 * workflow type (RUN_WORKFLOW_TYPE), the same LaunchRequest the gateway builds (packages/domain
 * startRun), the same options (temporal/client/runLauncher.ts), on the same task queue and
 * worker. The run's read-model row, which the worker's activities update, is written before
 * the clock starts: writing it is part of the gateway's path, not the SDK's.
 */
export const EXECUTE_TIMEOUT_MS = 30_000;

export class SdkBaseline {
  private readonly ready: LaunchRequest[] = [];
  /** The workflow id of the last run executed (to read one run's history). */
  lastExecutedId: string | undefined;

  private constructor(
    private readonly db: DbHandle,
    private readonly client: Client,
    private readonly taskQueue: string,
    /** The runs' launch as the gateway builds it, but for their ids. */
    readonly template: Omit<LaunchRequest, 'runId' | 'temporalWorkflowId'>,
  ) {}

  static async create(db: DbHandle, client: Client, taskQueue: string, tenant: Tenant): Promise<SdkBaseline> {
    const { row, definition } = await findWorkflow(db.prisma, tenant.workspaceId, tenant.workflowId);
    return new SdkBaseline(db, client, taskQueue, {
      workspaceId: tenant.workspaceId,
      workflowId: row.id,
      workflowVersion: row.version,
      definition,
      input: BENCH_INPUT,
    });
  }

  /** Writes `count` queued runs (with their steps) as startRun does, ready to be started. */
  async prepare(count: number): Promise<void> {
    const t = this.template;
    const runs = Array.from({ length: count }, () => {
      const runId = newId('run');
      return { ...t, runId, temporalWorkflowId: runId };
    });
    for (let i = 0; i < runs.length; i += 1_000) {
      const chunk = runs.slice(i, i + 1_000);
      await this.db.prisma.$transaction([
        this.db.prisma.run.createMany({
          data: chunk.map((r) => ({
            id: r.runId,
            workspaceId: r.workspaceId,
            workflowId: r.workflowId,
            workflowVersion: r.workflowVersion,
            status: 'queued',
            input: r.input as object,
            trigger: 'api',
            temporalWorkflowId: r.temporalWorkflowId,
          })),
        }),
        this.db.prisma.runStep.createMany({
          data: chunk.flatMap((r) =>
            t.definition.steps.map((s, position) => ({ runId: r.runId, key: s.key, name: s.name, type: s.type, position })),
          ),
        }),
      ]);
    }
    this.ready.push(...runs);
  }

  /** Removes prepared runs that were never started (they would stay `queued` forever). */
  async discardUnused(): Promise<number> {
    const ids = this.ready.splice(0).map((r) => r.runId);
    for (let i = 0; i < ids.length; i += 1_000) {
      await this.db.prisma.run.deleteMany({ where: { id: { in: ids.slice(i, i + 1_000) } } });
    }
    return ids.length;
  }

  private next(): LaunchRequest {
    const req = this.ready.pop();
    if (!req) throw new Error('the SDK baseline ran out of prepared runs; prepare more');
    return req;
  }

  private options(req: LaunchRequest) {
    return runStartOptions(req, this.taskQueue);
  }

  /** `client.workflow.start`: returns once Temporal has accepted the run. */
  readonly start = async (): Promise<void> => {
    const req = this.next();
    await this.client.workflow.start<typeof runWorkflow>(RUN_WORKFLOW_TYPE, this.options(req));
  };

  /** `client.workflow.execute`: returns once the run's workflow has completed. */
  readonly execute = async (): Promise<void> => {
    const req = this.next();
    // As `wait: true` gives up after RUN_WAIT_TIMEOUT_MS, never wait forever for a stuck run.
    const result = await this.client.withAbortSignal(AbortSignal.timeout(EXECUTE_TIMEOUT_MS), () =>
      this.client.workflow.execute<typeof runWorkflow>(RUN_WORKFLOW_TYPE, this.options(req)),
    );
    if (result.status !== 'succeeded') throw new Error(`run ${req.runId} ended ${result.status}`);
    this.lastExecutedId = req.temporalWorkflowId;
  };
}
