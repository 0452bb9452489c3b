import type { Command } from 'commander';
import { createApiKey, listApiKeys, parseDuration, revokeApiKey } from '@svc/domain';
import { table } from '../output';
import type { Run } from '../run';

export function registerKeys(program: Command, run: Run): void {
  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'a label for the key')
    .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. runs:read,runs:write')
    .option('--expires-in <duration>', 'e.g. 30d, 12h')
    .action((o: { workspace: string; name: string; scopes: string; expiresIn?: string }) =>
      run(
        (ctx) =>
          createApiKey(ctx.db.prisma, {
            workspaceId: o.workspace,
            name: o.name,
            scopes: o.scopes
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
            expiresAt: o.expiresIn ? new Date(Date.now() + parseDuration(o.expiresIn)) : undefined,
          }),
        (k) => `${k.key}\n\nThis is the only time the key is shown. Key id: ${k.id}`,
      ),
    );
  keys
    .command('list')
    .requiredOption('--workspace <id>', 'workspace id')
    .action((o: { workspace: string }) =>
      run(
        async (ctx) => ({ data: await listApiKeys(ctx.db.prisma, o.workspace) }),
        (r) =>
          table(
            r.data.map((k: any) => ({ ...k, key: `svc_…${k.last4}` })),
            ['id', 'name', 'key', 'scopes', 'expires_at', 'revoked_at'],
          ),
      ),
    );
  keys.command('revoke <keyId>').action((keyId: string) =>
    run(
      (ctx) => revokeApiKey(ctx.db.prisma, keyId),
      (k) => `revoked ${k.id}`,
    ),
  );
}
