import type { Command } from 'commander';
import { parseDuration } from '@svc/config';
import { createApiKey, listApiKeys, revokeApiKey } from '@svc/domain';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';
import { commaList } from '../usage';

export function registerKeys(program: Command, run: Run): void {
  const keys = program.command('keys').description('API keys of a workspace');
  examples(keys, 'svc keys create --workspace ws_123 --name ci --scopes runs:read,runs:write');
  examples(
    keys
      .command('create')
      .description('Create an API key; the key is printed only here')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--name <name>', 'a label for the key')
      .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. runs:read,runs:write', commaList)
      .option('--expires-in <duration>', 'e.g. 30d, 12h')
      .action((o: { workspace: string; name: string; scopes: string[]; expiresIn?: string }) =>
        run(
          (ctx) =>
            createApiKey(ctx.db.prisma, {
              workspaceId: o.workspace,
              name: o.name,
              scopes: o.scopes,
              expiresAt: o.expiresIn ? new Date(Date.now() + parseDuration(o.expiresIn)) : undefined,
            }),
          (k) => `${k.key}\n\nThis is the only time the key is shown. Key id: ${k.id}`,
        ),
      ),
    'svc keys create --workspace ws_123 --name ci --scopes runs:read,runs:write --expires-in 30d',
  );
  examples(
    keys
      .command('list')
      .description("A workspace's keys (never the keys themselves: their last 4 characters)")
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
      ),
    'svc keys list --workspace ws_123',
  );
  examples(
    keys
      .command('revoke <keyId>')
      .description('Revoke a key: refused from the very next request')
      .action((keyId: string) =>
        run(
          (ctx) => revokeApiKey(ctx.db.prisma, keyId),
          (k) => `revoked ${k.id}`,
        ),
      ),
    'svc keys revoke key_123',
  );
}
