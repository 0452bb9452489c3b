import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { IDEMPOTENCY_KEY_PATTERN, RUN_STATUSES } from '@svc/contract';
import { AppError, cancelRun, decidedViaText, findWorkflow, getRun, RUN_SUMMARY_COLUMNS, startRun, toRunSummary } from '@svc/domain';
import type { RunSummaryView, RunView } from '@svc/domain';
import { createRunControl, createRunLauncher } from '@svc/temporal';
import type { CliContext } from '../context';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';
import { jsonObject, limitOption } from '../usage';
import { changeLine, followRun, runExitCode, SETTLED_STATUSES } from './runWatch';
import type { RunChange, WatchedRun } from './runWatch';

/** How often `runs watch` (and `runs start --wait`, past the start's own wait) reads the run. */
const WATCH_INTERVAL_MS = 500;
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The CLI is the operator's tool, so a run is found by its id alone (any workspace). */
async function runWorkspace(ctx: CliContext, runId: string): Promise<string> {
  const row = await ctx.db.prisma.run.findUnique({ where: { id: runId }, select: { workspaceId: true } });
  if (!row) throw new AppError('run_not_found', `Run ${runId} not found`);
  return row.workspaceId;
}

/** The CLI is the operator's tool, so a workflow is found by its id alone (any workspace). */
async function workflowWorkspace(ctx: CliContext, workflowId: string): Promise<string> {
  const row = await ctx.db.prisma.workflow.findUnique({ where: { id: workflowId }, select: { workspaceId: true } });
  if (!row) throw new AppError('workflow_not_found', `Workflow ${workflowId} not found`);
  return row.workspaceId;
}

function idempotencyKey(value: string): string {
  if (!IDEMPOTENCY_KEY.test(value)) throw new InvalidArgumentError('Expected 1–255 printable ASCII characters.');
  return value;
}

/** Follows a run until it settles, printing each change as it happens unless the output is JSON. */
async function watch(
  ctx: CliContext,
  run: { runId: string; workspaceId: string },
  opts: { print: boolean; first?: RunView },
): Promise<WatchedRun> {
  const read = () => getRun(ctx.db.prisma, run);
  const print = (c: RunChange) => process.stdout.write(changeLine(c) + '\n');
  return followRun(read, { intervalMs: WATCH_INTERVAL_MS, first: opts.first, onChange: opts.print ? print : undefined });
}

const settledLine = (r: RunView) =>
  `run ${r.id} ${r.status}${r.error ? ` (${r.error.code}: ${r.error.message})` : ''}${r.output !== null ? `\noutput: ${JSON.stringify(r.output)}` : ''}`;

/** The run with where operators find it in Temporal. */
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
  examples(runs, 'svc runs start wf_123 --input \'{"name": "Ada"}\' --wait', 'svc runs watch run_123');
  const json = () => program.opts<{ json?: boolean }>().json === true;

  examples(
    runs
      .command('list')
      .description("A workspace's runs, newest first, without their data (input, output, steps): `runs show` has those")
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--workflow <id>', 'only runs of this workflow')
      .addOption(new Option('--status <status>', 'only runs in this status').choices(RUN_STATUSES))
      .addOption(limitOption(50, 1000))
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
              take: o.limit,
            });
            return { data: rows.map(toRunSummary) };
          },
          (r: { data: RunSummaryView[] }) => table(r.data, ['id', 'workflow_id', 'status', 'created_at', 'duration_ms']),
        ),
      ),
    'svc runs list --workspace ws_123 --status failed --limit 10',
  );

  examples(
    runs
      .command('start <workflowId>')
      .summary('Start a run (--wait: until it settles)')
      .description(
        'Start a run of the current version. With --wait, follow it until it settles: exit 0 when it succeeded, 1 when it failed or was cancelled',
      )
      .requiredOption('--input <json>', 'the input: JSON text, or @file.json', jsonObject)
      .option('--wait', 'wait until the run settles, then print it')
      .option('--idempotency-key <key>', 'start at most one run per key (24 h), as the API does', idempotencyKey)
      .action((workflowId: string, o: { input: Record<string, unknown>; wait?: boolean; idempotencyKey?: string }) =>
        run(
          async (ctx) => {
            const workspaceId = await workflowWorkspace(ctx, workflowId);
            const launcher = createRunLauncher({ client: await ctx.temporal(), taskQueue: ctx.config.TEMPORAL_TASK_QUEUE });
            const started = await startRun(
              { prisma: ctx.db.prisma, launcher },
              {
                workspaceId,
                workflowId,
                input: o.input,
                // What the API would fingerprint for the same request, so a key means the same either way.
                body: { input: o.input, ...(o.wait ? { wait: true } : {}) },
                idempotencyKey: o.idempotencyKey,
                trigger: 'api',
                wait: o.wait ? { timeoutMs: ctx.config.RUN_WAIT_TIMEOUT_MS } : undefined,
              },
            );
            const settled =
              o.wait && !SETTLED_STATUSES.includes(started.run.status)
                ? (await watch(ctx, { runId: started.run.id, workspaceId }, { print: false, first: started.run })).run
                : started.run;
            return { ...settled, replayed: started.replayed };
          },
          (r) => (SETTLED_STATUSES.includes(r.status) ? settledLine(r) : `run ${r.id} ${r.status}${r.replayed ? ' (replayed)' : ''}`),
          runExitCode,
        ),
      ),
    'svc runs start wf_123 --input \'{"name": "Ada"}\'',
    'svc runs start wf_123 --input @input.json --wait --idempotency-key order-1001',
  );

  examples(
    runs
      .command('watch <runId>')
      .summary('Follow a run until it settles')
      .description(
        'Follow a run, printing each change of its status and of its steps, until it settles: exit 0 when it succeeded, 1 when it failed or was cancelled',
      )
      .action((runId: string) =>
        run(
          async (ctx) => watch(ctx, { runId, workspaceId: await runWorkspace(ctx, runId) }, { print: !json() }),
          (w) => settledLine(w.run),
          (w) => runExitCode(w.run),
        ),
      ),
    'svc runs watch run_123',
    'svc runs watch run_123 --json | jq .run.output',
  );

  examples(
    runs
      .command('show <runId>')
      .description('A run: its steps, review, Temporal workflow id and Temporal UI link')
      .action((runId: string) => run((ctx) => showRun(ctx, runId), describeRun)),
    'svc runs show run_123',
  );
  examples(
    runs
      .command('cancel <runId>')
      .description('Cancel a queued run or one waiting for review (as the API does)')
      .action((runId: string) =>
        run(
          async (ctx) => {
            const workspaceId = await runWorkspace(ctx, runId);
            return cancelRun({ prisma: ctx.db.prisma, control: createRunControl(await ctx.temporal()) }, { workspaceId, runId });
          },
          (r) => `run ${r.id} ${r.status}`,
        ),
      ),
    'svc runs cancel run_123',
  );
}
