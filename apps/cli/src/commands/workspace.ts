import type { Command } from 'commander';
import { createWorkspace, setWorkspacePlan } from '@svc/domain';
import type { Run } from '../run';

export function registerWorkspace(program: Command, run: Run): void {
  const ws = program.command('workspace').description('Workspaces and plans');
  ws.command('create')
    .requiredOption('--name <name>', 'workspace name')
    .option('--plan <plan>', 'free | basic | pro | business | elite | enterprise', 'basic')
    .option('--admin-email <email>', 'administrator email (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .action((o: { name: string; plan: string; adminEmail: string[] }) =>
      run(
        (ctx) => createWorkspace(ctx.db.prisma, { name: o.name, plan: o.plan, adminEmails: o.adminEmail }),
        (w) => `created workspace ${w.id} (${w.plan})`,
      ),
    );
  ws.command('set-plan <workspace> <plan>')
    .description("moves a workspace to a plan; on enterprise, its own figures (each one left out is the plan's)")
    .option('--rate-limit <n>', 'requests per minute per key (enterprise)', (v) => parseIntStrict(v, '--rate-limit'))
    .option('--concurrency <n>', 'concurrent runs (enterprise)', (v) => parseIntStrict(v, '--concurrency'))
    .option('--webhook-endpoints <n>', 'webhook endpoints cap (enterprise)', (v) => parseIntStrict(v, '--webhook-endpoints'))
    .option('--secrets <n>', 'secrets cap (enterprise)', (v) => parseIntStrict(v, '--secrets'))
    .option('--review-assignees <n>', 'assignees per review step cap (enterprise)', (v) => parseIntStrict(v, '--review-assignees'))
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
    );
}

interface SetPlanOptions {
  rateLimit?: number;
  concurrency?: number;
  webhookEndpoints?: number;
  secrets?: number;
  reviewAssignees?: number;
}

export function parseIntStrict(v: string, flag: string): number {
  if (!/^\d+$/.test(v)) throw new Error(`${flag} must be a whole number`);
  return Number(v);
}
