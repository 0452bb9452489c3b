import { userInfo } from 'node:os';
import { Option } from 'commander';
import type { Command } from 'commander';
import { decideReview, listReviews } from '@svc/domain';
import { createRunControl } from '@svc/temporal';
import { examples } from '../help';
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
  examples(reviews, 'svc reviews list --workspace ws_123 --pending');
  const list = reviews
    .command('list')
    .description("A workspace's reviews, newest first")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--pending', 'only reviews waiting for a decision')
    .action((o: { workspace: string; pending?: boolean }) =>
      run(
        async (ctx) => ({ data: await listReviews(ctx.db.prisma, { workspaceId: o.workspace, pendingOnly: o.pending }) }),
        (r) => table(r.data, ['id', 'run_id', 'status', 'title', 'assignees', 'expires_at']),
      ),
    );
  examples(list, 'svc reviews list --workspace ws_123 --pending');
  const decide = reviews
    .command('decide <reviewId>')
    .description('Approve or reject a pending review')
    .addOption(new Option('--approve', 'approve: the run continues').conflicts('reject'))
    .addOption(new Option('--reject', 'reject: the run fails (unless the step continues on reject)').conflicts('approve'))
    .option('--comment <text>', 'a comment kept with the decision')
    .option('--by <email>', 'who decided', 'cli')
    .action((reviewId: string, o: { approve?: boolean; reject?: boolean; comment?: string; by: string }, cmd: Command) => {
      if (!o.approve && !o.reject) cmd.error('error: give one of --approve or --reject');
      return run(
        async (ctx) => {
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
      );
    });
  examples(decide, 'svc reviews decide rev_123 --approve --comment "looks right" --by ops@acme.test');
}
