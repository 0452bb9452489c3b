import type { Command } from 'commander';
import { createWorkspace, setWorkspacePlan } from '@svc/domain';
import { examples } from '../help';
import type { Run } from '../run';
import { wholeNumber } from '../usage';

interface SetPlanOptions {
  rateLimit?: number;
  concurrency?: number;
  webhookEndpoints?: number;
  secrets?: number;
  reviewAssignees?: number;
}

export function registerWorkspace(program: Command, run: Run): void {
  const ws = program.command('workspace').description('Workspaces and plans');
  examples(ws, 'svc workspace create --name Acme --plan pro --admin-email ops@acme.test');
  examples(
    ws
      .command('create')
      .description('Create a workspace; prints it with its id')
      .requiredOption('--name <name>', 'workspace name')
      .option('--plan <plan>', 'free | basic | pro | business | elite | enterprise', 'basic')
      .option('--admin-email <email>', 'administrator email (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
      .action((o: { name: string; plan: string; adminEmail: string[] }) =>
        run(
          (ctx) => createWorkspace(ctx.db.prisma, { name: o.name, plan: o.plan, adminEmails: o.adminEmail }),
          (w) => `created workspace ${w.id} (${w.plan})`,
        ),
      ),
    'svc workspace create --name Acme --plan pro --admin-email ops@acme.test --admin-email cto@acme.test',
  );
  examples(
    ws
      .command('set-plan <workspace> <plan>')
      .description("Move a workspace to a plan; on enterprise, its own figures (each one left out is the plan's)")
      .option('--rate-limit <n>', 'requests per minute per key (enterprise)', wholeNumber(0))
      .option('--concurrency <n>', 'concurrent runs (enterprise)', wholeNumber(0))
      .option('--webhook-endpoints <n>', 'webhook endpoints cap (enterprise)', wholeNumber(0))
      .option('--secrets <n>', 'secrets cap (enterprise)', wholeNumber(0))
      .option('--review-assignees <n>', 'assignees per review step cap (enterprise)', wholeNumber(0))
      .action((workspace: string, plan: string, o: SetPlanOptions) =>
        run(
          (ctx) =>
            setWorkspacePlan(ctx.db.prisma, workspace, {
              plan,
              rateLimitPerMin: o.rateLimit,
              concurrency: o.concurrency,
              maxWebhookEndpoints: o.webhookEndpoints,
              maxSecrets: o.secrets,
              maxReviewAssignees: o.reviewAssignees,
            }),
          (w) => `workspace ${w.id} is now on the ${w.plan} plan`,
        ),
      ),
    'svc workspace set-plan ws_123 business',
    'svc workspace set-plan ws_123 enterprise --rate-limit 5000 --concurrency 80 --webhook-endpoints 200',
  );
}
