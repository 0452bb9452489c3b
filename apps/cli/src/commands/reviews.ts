import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { decideReview, listReviews } from '@svc/domain';
import { createRunControl } from '@svc/temporal';
import { table } from '../output';
import type { Run } from '../run';

/** The OS account running the CLI, from the password database (not from environment variables). */
function osAccount(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null; // a uid with no passwd entry, as in some containers
  }
}

export function registerReviews(program: Command, run: Run): void {
  const reviews = program.command('reviews').description('Runs waiting for a person');
  reviews
    .command('list')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--pending', 'only reviews waiting for a decision')
    .action((o: { workspace: string; pending?: boolean }) =>
      run(
        async (ctx) => ({ data: await listReviews(ctx.db.prisma, { workspaceId: o.workspace, pendingOnly: o.pending }) }),
        (r) => table(r.data, ['id', 'run_id', 'status', 'title', 'assignees', 'expires_at']),
      ),
    );
  reviews
    .command('decide <reviewId>')
    .option('--approve', 'approve: the run continues')
    .option('--reject', 'reject: the run fails (unless the step continues on reject)')
    .option('--comment <text>', 'a comment kept with the decision')
    .option('--by <email>', 'who decided', 'cli')
    .action((reviewId: string, o: { approve?: boolean; reject?: boolean; comment?: string; by: string }) =>
      run(
        async (ctx) => {
          if (Boolean(o.approve) === Boolean(o.reject)) throw new Error('give exactly one of --approve or --reject');
          const control = createRunControl(await ctx.temporal());
          return decideReview(
            { prisma: ctx.db.prisma, control },
            {
              reviewId,
              decision: o.approve ? 'approved' : 'rejected',
              comment: o.comment ?? null,
              decidedBy: o.by,
              // --by is only the label: the CLI holds the database and Temporal credentials itself.
              decidedVia: { type: 'cli', id: osAccount() },
            },
          );
        },
        (r) => `review ${r.id} ${r.status}${r.comment ? ` (${r.comment})` : ''}; run ${r.run_id}`,
      ),
    );
}
