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
    .option('--rate-limit <n>', 'requests per minute per key (enterprise)', (v) => parseIntStrict(v, '--rate-limit'))
    .option('--concurrency <n>', 'concurrent runs (enterprise)', (v) => parseIntStrict(v, '--concurrency'))
    .action((workspace: string, plan: string, o: { rateLimit?: number; concurrency?: number }) =>
      run(
        (ctx) => setWorkspacePlan(ctx.db.prisma, workspace, { plan, rateLimitPerMin: o.rateLimit, concurrency: o.concurrency }),
        (w) => `workspace ${w.id} is now on the ${w.plan} plan`,
      ),
    );
}

export function parseIntStrict(v: string, flag: string): number {
  if (!/^\d+$/.test(v)) throw new Error(`${flag} must be a whole number`);
  return Number(v);
}
