import type { Command } from 'commander';
import { addMember, createMailer, issueSignInLink, listMembers, normalizeEmail } from '@svc/domain';
import type { CliContext } from '../context';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';

function mailerOf(ctx: CliContext) {
  // Without SMTP_URL, the invitation goes to the logged outbox (`svc mail list`).
  return createMailer({ smtpUrl: ctx.config.SMTP_URL, from: ctx.config.MAIL_FROM, logger: { info() {}, warn() {} }, db: ctx.db.prisma });
}

/** `svc members …`: the people of a workspace who use the web console. */
export function registerMembers(program: Command, run: Run): void {
  const m = program.command('members').description('Console members of a workspace');
  examples(m, 'svc members add --workspace ws_123 --email ada@acme.test --role admin');
  const add = m
    .command('add')
    .description('Add a member and mail them an invitation link to choose a password')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--email <email>', "the member's email")
    .requiredOption('--role <role>', 'admin or member')
    .action((o: { workspace: string; email: string; role: string }) =>
      run(
        async (ctx) => {
          const mailer = mailerOf(ctx);
          try {
            const r = await addMember(
              { prisma: ctx.db.prisma, mailer },
              { workspaceId: o.workspace, email: o.email, role: o.role, baseUrl: ctx.config.BASE_URL },
            );
            return r.member;
          } finally {
            mailer.close();
          }
        },
        (v) => `${v.email} added to ${v.workspace_id} as ${v.role}; an invitation link was mailed.`,
      ),
    );
  examples(add, 'svc members add --workspace ws_123 --email ada@acme.test --role member');
  const list = m
    .command('list')
    .description("A workspace's console members")
    .requiredOption('--workspace <id>', 'workspace id')
    .action((o: { workspace: string }) =>
      run(
        async (ctx) => ({ data: await listMembers(ctx.db.prisma, o.workspace) }),
        (r) => table(r.data, ['id', 'email', 'role', 'has_password', 'created_at']),
      ),
    );
  examples(list, 'svc members list --workspace ws_123');
  const signInLink = m
    .command('sign-in-link')
    .description('Print a one-time sign-in link (15 minutes) for a member, e.g. the demo admin')
    .requiredOption('--email <email>', "the member's email")
    .action((o: { email: string }) =>
      run(
        async (ctx) => {
          const member = await ctx.db.prisma.member.findUnique({ where: { email: normalizeEmail(o.email) } });
          if (!member) throw new Error(`${o.email} is not a member`);
          return {
            email: member.email,
            link: await issueSignInLink(ctx.db.prisma, { memberId: member.id, purpose: 'sign_in', baseUrl: ctx.config.BASE_URL }),
          };
        },
        (v) => v.link,
      ),
    );
  examples(signInLink, 'svc members sign-in-link --email admin@demo.test');
}
