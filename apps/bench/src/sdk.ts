import type { Client } from '@temporalio/client';
import type { DbHandle } from '@svc/db';
import { findWorkflow, newId } from '@svc/domain';
import type { LaunchRequest } from '@svc/domain';
import { RUN_WORKFLOW_TYPE, runStartOptions } from '@svc/temporal';
import { GREET_INPUT } from './tenants';
import type { Tenant } from './tenants';

/**
 * The start row's baseline: svc's own run workflow started straight through the SDK, with the
 * launch and options the gateway builds (temporal/client/runLauncher.ts), on svc's task queue, so
 * both sides leave the same runs behind for svc's worker. The runs' rows, which the worker's
 * activities update, are written before the clock starts: writing them is the gateway's work.
 */
export class SdkStarts {
  private readonly ready: LaunchRequest[] = [];

  private constructor(
    private readonly db: DbHandle,
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly launch: Omit<LaunchRequest, 'runId' | 'temporalWorkflowId'>,
  ) {}

  static async create(db: DbHandle, client: Client, taskQueue: string, tenant: Tenant): Promise<SdkStarts> {
    const { row, definition } = await findWorkflow(db.prisma, tenant.workspaceId, tenant.workflowId);
    const launch = { workspaceId: tenant.workspaceId, workflowId: row.id, workflowVersion: row.version, definition, input: GREET_INPUT };
    return new SdkStarts(db, client, taskQueue, launch);
  }

  /** Writes `count` queued runs with their steps, as the gateway's start does. */
  async prepare(count: number): Promise<void> {
    const l = this.launch;
    const runs = Array.from({ length: count }, () => newId('run')).map((runId) => ({ ...l, runId, temporalWorkflowId: runId }));
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
            l.definition.steps.map((s, position) => ({ runId: r.runId, key: s.key, name: s.name, type: s.type, position })),
          ),
        }),
      ]);
    }
    this.ready.push(...runs);
  }

  /** Removes the prepared runs never started (they would stay `queued`). */
  async discardUnused(): Promise<void> {
    const ids = this.ready.splice(0).map((r) => r.runId);
    for (let i = 0; i < ids.length; i += 1_000) await this.db.prisma.run.deleteMany({ where: { id: { in: ids.slice(i, i + 1_000) } } });
  }

  /** `client.workflow.start`: returns once Temporal has accepted the run. */
  readonly start = async (): Promise<void> => {
    const req = this.ready.pop();
    if (!req) throw new Error('no prepared run left');
    await this.client.workflow.start(RUN_WORKFLOW_TYPE, runStartOptions(req, this.taskQueue));
  };
}
