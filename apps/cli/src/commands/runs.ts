import { Option } from 'commander';
import type { Command } from 'commander';
import { RUN_STATUSES } from '@svc/contract';
import { AppError, cancelRun, decidedViaText, findWorkflow, getRun, RUN_SUMMARY_COLUMNS, toRunSummary } from '@svc/domain';
import type { RunSummaryView } from '@svc/domain';
import { createRunControl } from '@svc/temporal';
import type { CliContext } from '../context';
import { table } from '../output';
import type { Run } from '../run';

/** The CLI is the operator's tool, so a run is found by its id alone (any workspace). */
async function runWorkspace(ctx: CliContext, runId: string): Promise<string> {
  const row = await ctx.db.prisma.run.findUnique({ where: { id: runId }, select: { workspaceId: true } });
  if (!row) throw new AppError('run_not_found', `Run ${runId} not found`);
  return row.workspaceId;
}

/** The run with where operators find it in Temporal (API.md §12). */
async function showRun(ctx: CliContext, runId: string) {
  const run = await getRun(ctx.db.prisma, { workspaceId: await runWorkspace(ctx, runId), runId });
  const { temporalWorkflowId } = await ctx.db.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { temporalWorkflowId: true } });
  const namespace = ctx.config.TEMPORAL_NAMESPACE;
  const ui = ctx.config.TEMPORAL_UI_URL?.replace(/\/$/, '');
  const uiUrl = ui ? `${ui}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(temporalWorkflowId)}` : null;
  return { ...run, temporal: { workflow_id: temporalWorkflowId, namespace, ui_url: uiUrl } };
}

function describeRun(r: Awaited<ReturnType<typeof showRun>>): string {
  const lines = [
    `run ${r.id} ${r.status} (workflow ${r.workflow_id} v${r.workflow_version})`,
    ...(r.error ? [`error: ${r.error.code}: ${r.error.message}${r.error.step_key ? ` (step ${r.error.step_key})` : ''}`] : []),
    `temporal workflow: ${r.temporal.workflow_id} (namespace ${r.temporal.namespace})`,
    `temporal ui: ${r.temporal.ui_url ?? '(unknown: set TEMPORAL_UI_URL)'}`,
    '',
    table(r.steps ?? [], ['key', 'type', 'status', 'attempts', 'duration_ms']),
  ];
  const v = r.review;
  if (v) {
    lines.push('', `review ${v.id} (step ${v.step_key}) ${v.status}: ${v.title}`);
    if (v.decided_at) {
      const via = v.decided_via ? ` (via ${decidedViaText(v.decided_via)})` : '';
      lines.push(`decided ${v.decision} by ${v.decided_by}${via} at ${v.decided_at}${v.comment ? `: ${v.comment}` : ''}`);
    } else lines.push(`assignees: ${v.assignees.join(', ')}; expires ${v.expires_at}`);
  }
  return lines.join('\n');
}

export function registerRuns(program: Command, run: Run): void {
  const runs = program.command('runs').description('Runs of workflows');
  runs
    .command('list')
    .description('runs, newest first, without their data (input, output, steps): `runs show` has those')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--workflow <id>', 'only runs of this workflow')
    .addOption(new Option('--status <status>', 'only runs in this status').choices(RUN_STATUSES))
    .addOption(new Option('--limit <n>', 'at most this many runs').argParser(Number).default(50))
    .action((o: { workspace: string; workflow?: string; status?: string; limit: number }) =>
      run(
        async (ctx) => {
          if (o.workflow) await findWorkflow(ctx.db.prisma, o.workspace, o.workflow);
          const rows = await ctx.db.prisma.run.findMany({
            where: {
              workspaceId: o.workspace,
              ...(o.workflow ? { workflowId: o.workflow } : {}),
              ...(o.status ? { status: o.status } : {}),
            },
            select: RUN_SUMMARY_COLUMNS,
            orderBy: { seq: 'desc' },
            take: Math.max(1, Math.min(o.limit, 1000)),
          });
          return { data: rows.map(toRunSummary) };
        },
        (r: { data: RunSummaryView[] }) => table(r.data, ['id', 'workflow_id', 'status', 'created_at', 'duration_ms']),
      ),
    );
  runs
    .command('show <runId>')
    .description('a run: its steps, review, Temporal workflow id and Temporal UI link')
    .action((runId: string) => run((ctx) => showRun(ctx, runId), describeRun));
  runs
    .command('cancel <runId>')
    .description('cancels a queued run or one waiting for review (as the API does)')
    .action((runId: string) =>
      run(
        async (ctx) => {
          const workspaceId = await runWorkspace(ctx, runId);
          return cancelRun({ prisma: ctx.db.prisma, control: createRunControl(await ctx.temporal()) }, { workspaceId, runId });
        },
        (r) => `run ${r.id} ${r.status}`,
      ),
    );
}
