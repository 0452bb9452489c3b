import type { Command } from 'commander';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import YAML from 'yaml';
import { AppError, applyWorkflowAndAnnounce, listWorkflows, rotateTriggerSecrets, showTrigger } from '@svc/domain';
import type { TriggerSecrets, WorkflowView } from '@svc/domain';
import type { CliContext } from '../context';
import { readDefinitionFile } from '../definitionFile';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';
import { wholeNumber } from '../usage';

/** A stored version's definition, as YAML (the form a diff reads best in). */
async function versionText(ctx: CliContext, workflowId: string, version: number): Promise<string> {
  const v = await ctx.db.prisma.workflowVersion.findUnique({ where: { workflowId_version: { workflowId, version } } });
  if (!v) {
    const exists = await ctx.db.prisma.workflow.findUnique({ where: { id: workflowId }, select: { version: true } });
    if (!exists) throw new AppError('workflow_not_found', `Workflow ${workflowId} not found`);
    throw new AppError('not_found', `Workflow ${workflowId} has no version ${version} (its versions are 1 to ${exists.version})`);
  }
  return YAML.stringify(v.definition, { lineWidth: 0 });
}

export function registerWorkflows(program: Command, run: Run): void {
  const wf = program.command('workflows').description('Workflow definitions');
  examples(wf, 'svc workflows validate -f greet.yaml', 'svc workflows apply --workspace ws_123 -f greet.yaml');
  examples(
    wf
      .command('apply')
      .description('Create a workflow, or update it by slug (a new version, raising workflow.updated); prints it')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('-f, --file <path>', 'definition file (JSON or YAML)')
      .action((o: { workspace: string; file: string }) =>
        run(
          async (ctx) => {
            const definition = readDefinitionFile(o.file);
            const result = await applyWorkflowAndAnnounce(ctx.db.prisma, ctx.box(), {
              workspaceId: o.workspace,
              definition,
              baseUrl: ctx.config.BASE_URL,
            });
            return { ...result.workflow, change: result.change };
          },
          (w: WorkflowView & { change: string }) =>
            `${w.change} workflow ${w.id} (${w.slug}) version ${w.version}\ntrigger: ${w.trigger.url}`,
        ),
      ),
    'svc workflows apply --workspace ws_123 -f greet.yaml',
  );
  examples(
    wf
      .command('validate')
      .summary('Check a definition file without applying it')
      .description(
        'Check a definition file with the parser apply uses, without applying it: exit 1 with each problem at its line and column',
      )
      .requiredOption('-f, --file <path>', 'definition file (JSON or YAML)')
      .action((o: { file: string }) =>
        run(
          async () => {
            const d = readDefinitionFile(o.file);
            return { file: o.file, valid: true, name: d.name, slug: d.slug, steps: d.steps.length };
          },
          (v) => `${v.file}: valid (${v.slug}, ${v.steps} step${v.steps === 1 ? '' : 's'})`,
        ),
      ),
    'svc workflows validate -f greet.yaml',
  );
  examples(
    wf
      .command('diff <workflowId>')
      .description("A unified diff between two versions of a workflow's definition")
      .requiredOption('--from <version>', 'the older version', wholeNumber(1))
      .requiredOption('--to <version>', 'the newer version', wholeNumber(1))
      .action((workflowId: string, o: { from: number; to: number }) =>
        run(
          async (ctx) => {
            const [from, to] = await Promise.all([versionText(ctx, workflowId, o.from), versionText(ctx, workflowId, o.to)]);
            const diff = createTwoFilesPatch(`${workflowId} v${o.from}`, `${workflowId} v${o.to}`, from, to, undefined, undefined, {
              context: 3,
              headerOptions: FILE_HEADERS_ONLY,
            });
            return { workflow_id: workflowId, from: o.from, to: o.to, changed: from !== to, diff };
          },
          (r) => r.diff.trimEnd(),
        ),
      ),
    'svc workflows diff wf_123 --from 1 --to 2',
  );
  examples(
    wf
      .command('list')
      .description("A workspace's workflows")
      .requiredOption('--workspace <id>', 'workspace id')
      .action((o: { workspace: string }) =>
        run(
          (ctx) => listWorkflows(ctx.db.prisma, { workspaceId: o.workspace, limit: 100, baseUrl: ctx.config.BASE_URL }),
          (p) => table(p.data, ['id', 'slug', 'name', 'version', 'updated_at']),
        ),
      ),
    'svc workflows list --workspace ws_123',
  );

  const triggers = program.command('triggers').description('Inbound webhook triggers');
  examples(triggers, 'svc triggers show wf_123');
  examples(
    triggers
      .command('show <workflowId>')
      .description("A workflow's trigger URL, its secret and its signing secret")
      .action((workflowId: string) =>
        run((ctx) => showTrigger(ctx.db.prisma, ctx.box(), { workflowId, baseUrl: ctx.config.BASE_URL }), triggerText),
      ),
    'svc triggers show wf_123',
  );
  examples(
    triggers
      .command('rotate <workflowId>')
      .description('New secret and signing secret; the previous ones stay valid for WEBHOOK_SECRET_OVERLAP_MS (24 h)')
      .action((workflowId: string) =>
        run(
          (ctx) =>
            rotateTriggerSecrets(ctx.db.prisma, ctx.box(), {
              workflowId,
              overlapMs: ctx.config.WEBHOOK_SECRET_OVERLAP_MS,
              baseUrl: ctx.config.BASE_URL,
            }),
          triggerText,
        ),
      ),
    'svc triggers rotate wf_123',
  );
}

function triggerText(t: TriggerSecrets): string {
  const requires = [t.auth.secret && 'x-svc-secret', t.auth.signature && 'x-svc-signature'].filter(Boolean).join(' + ');
  const previous = t.previous_secrets_expire_at ? `\nprevious pair:  accepted until ${t.previous_secrets_expire_at}` : '';
  return `url:            ${t.url}\nsecret:         ${t.secret}\nsigning secret: ${t.signing_secret}\nrequires:       ${requires}${previous}`;
}
