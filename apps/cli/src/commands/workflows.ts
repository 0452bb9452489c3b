import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { applyWorkflowAndAnnounce, listWorkflows, parseDefinition, rotateTriggerSecrets, showTrigger } from '@svc/domain';
import type { TriggerSecrets, WorkflowView } from '@svc/domain';
import { table } from '../output';
import type { Run } from '../run';

export function registerWorkflows(program: Command, run: Run): void {
  const wf = program.command('workflows').description('Workflow definitions');
  wf.command('apply')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('-f, --file <path>', 'definition file (JSON or YAML)')
    .action((o: { workspace: string; file: string }) =>
      run(
        async (ctx) => {
          const text = readFileSync(o.file, 'utf8');
          const format = /\.json$/i.test(o.file) ? 'json' : /\.ya?ml$/i.test(o.file) ? 'yaml' : undefined;
          const definition = parseDefinition(text, format);
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
    );
  wf.command('list')
    .requiredOption('--workspace <id>', 'workspace id')
    .action((o: { workspace: string }) =>
      run(
        (ctx) => listWorkflows(ctx.db.prisma, { workspaceId: o.workspace, limit: 100, baseUrl: ctx.config.BASE_URL }),
        (p) => table(p.data, ['id', 'slug', 'name', 'version', 'updated_at']),
      ),
    );

  const triggers = program.command('triggers').description('Inbound webhook triggers');
  triggers
    .command('show <workflowId>')
    .action((workflowId: string) =>
      run((ctx) => showTrigger(ctx.db.prisma, ctx.box(), { workflowId, baseUrl: ctx.config.BASE_URL }), triggerText),
    );
  triggers
    .command('rotate <workflowId>')
    .description('new secret and signing secret; the previous ones stay valid for WEBHOOK_SECRET_OVERLAP_MS (24 h)')
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
    );
}

function triggerText(t: TriggerSecrets): string {
  const requires = [t.auth.secret && 'x-svc-secret', t.auth.signature && 'x-svc-signature'].filter(Boolean).join(' + ');
  const previous = t.previous_secrets_expire_at ? `\nprevious pair:  accepted until ${t.previous_secrets_expire_at}` : '';
  return `url:            ${t.url}\nsecret:         ${t.secret}\nsigning secret: ${t.signing_secret}\nrequires:       ${requires}${previous}`;
}
