import type { Command } from 'commander';
import { listSecrets, reencryptSecrets, setSecret } from '@svc/domain';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new Error('pipe the secret value on standard input, e.g. `printf %s "$TOKEN" | svc secrets set …`');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  // One trailing newline is almost always from `echo`, not part of the secret.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function registerSecrets(program: Command, run: Run): void {
  const s = program.command('secrets').description('Workspace secrets (values are never printed)');
  examples(s, 'printf %s "$STRIPE_KEY" | svc secrets set --workspace ws_123 STRIPE_KEY');
  const set = s
    .command('set <name>')
    .description('Set a secret (the value is read from standard input), used as secrets.NAME in workflows')
    .requiredOption('--workspace <id>', 'workspace id')
    .action((name: string, o: { workspace: string }) =>
      run(
        async (ctx) => setSecret(ctx.db.prisma, ctx.box(), { workspaceId: o.workspace, name, value: await readStdin() }),
        (v) => `secret ${v.name} set`,
      ),
    );
  examples(set, 'printf %s "$STRIPE_KEY" | svc secrets set --workspace ws_123 STRIPE_KEY');
  const list = s
    .command('list')
    .description("A workspace's secret names (never their values)")
    .requiredOption('--workspace <id>', 'workspace id')
    .action((o: { workspace: string }) =>
      run(
        async (ctx) => ({ data: await listSecrets(ctx.db.prisma, o.workspace) }),
        (r) => table(r.data, ['name', 'updated_at']),
      ),
    );
  examples(list, 'svc secrets list --workspace ws_123');
  const reencrypt = s
    .command('reencrypt')
    .summary('Re-seal every secret at rest under the current key')
    .description(
      'Re-seal every secret at rest (workspace, trigger and webhook secrets) under the current SVC_ENCRYPTION_KEY, ' +
        'opening old values with SVC_ENCRYPTION_KEY_PREVIOUS; run it after a key rotation (idempotent)',
    )
    .action(() =>
      run(
        async (ctx) => {
          const box = ctx.box();
          return { key_id: box.keyId, reencrypted: await reencryptSecrets(ctx.db.prisma, box) };
        },
        (r) => [`re-encrypted under key ${r.key_id}:`, ...Object.entries(r.reencrypted).map(([kind, n]) => `  ${kind}: ${n}`)].join('\n'),
      ),
    );
  examples(reencrypt, 'SVC_ENCRYPTION_KEY=<new> SVC_ENCRYPTION_KEY_PREVIOUS=<old> svc secrets reencrypt');
}
