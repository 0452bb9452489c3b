import { Prisma, rowsOf } from '@svc/db';
import type { Db, SqlSource } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { AppError } from '../errors';
import { iso } from '../shared/time';
import { limitExceeded, MAX_SECRET_BYTES } from '../workspaces/caps';
import { lockWorkspaceCaps } from '../workspaces/lockCaps';
import { sealedContext } from './contexts';

const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

export interface SecretView {
  name: string;
  created_at: string | null;
  updated_at: string | null;
}

/**
 * Stores a workspace secret encrypted at rest; the value is never returned. Replacing a secret is
 * always allowed; a new name beyond the workspace's secrets cap is refused (422 limit_exceeded),
 * counted under the workspace's lock so concurrent sets cannot pass the cap together.
 */
export async function setSecret(db: Db, box: SecretBox, args: { workspaceId: string; name: string; value: string }): Promise<SecretView> {
  if (!SECRET_NAME.test(args.name)) {
    throw new AppError('validation_failed', 'Secret names are upper-case letters, digits and _ (e.g. API_TOKEN)', {
      errors: [{ path: 'name', message: 'invalid name' }],
    });
  }
  if (!args.value || Buffer.byteLength(args.value) > MAX_SECRET_BYTES) {
    throw new AppError('validation_failed', 'A secret value must be 1 byte to 64 KiB', {
      errors: [{ path: 'value', message: 'empty or too large' }],
    });
  }
  const valueEnc = box.seal(args.value, sealedContext.workspaceSecret(args.workspaceId, args.name));
  const row = await db.$transaction(async (tx) => {
    const caps = await lockWorkspaceCaps(tx, args.workspaceId);
    const [held] = await rowsOf<{ count: number; replaces: boolean }>(
      tx,
      Prisma.sql`SELECT count(*)::int AS count, COALESCE(bool_or(name = ${args.name}), false) AS replaces
                   FROM secrets WHERE workspace_id = ${args.workspaceId}`,
    );
    if (!held.replaces && held.count >= caps.secrets) throw limitExceeded('secrets', caps.secrets);
    return tx.secret.upsert({
      where: { workspaceId_name: { workspaceId: args.workspaceId, name: args.name } },
      create: { workspaceId: args.workspaceId, name: args.name, valueEnc },
      update: { valueEnc, updatedAt: new Date() },
    });
  });
  return { name: row.name, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

export async function listSecrets(db: Db, workspaceId: string): Promise<SecretView[]> {
  const rows = await db.secret.findMany({ where: { workspaceId }, orderBy: { name: 'asc' } });
  return rows.map((r) => ({ name: r.name, created_at: iso(r.createdAt), updated_at: iso(r.updatedAt) }));
}

/** A workspace secret as stored: its name and its sealed value. */
export interface SealedSecret {
  name: string;
  value_enc: string;
}

/** The workspace's sealed secrets as one JSON column, for a statement that reads them with other things. */
export function sealedSecretsColumn(workspaceId: string): Prisma.Sql {
  return Prisma.sql`(SELECT COALESCE(jsonb_agg(jsonb_build_object('name', name, 'value_enc', value_enc)), '[]'::jsonb)
    FROM secrets WHERE workspace_id = ${workspaceId})`;
}

/** Opens sealed secrets, for use inside an activity only. */
export function openWorkspaceSecrets(box: SecretBox, workspaceId: string, rows: SealedSecret[]): Record<string, string> {
  return Object.fromEntries(rows.map((r) => [r.name, box.open(r.value_enc, sealedContext.workspaceSecret(workspaceId, r.name))]));
}

/** Decrypted secrets for use inside an activity only. */
export async function loadWorkspaceSecrets(db: SqlSource, box: SecretBox, workspaceId: string): Promise<Record<string, string>> {
  const rows = await rowsOf<SealedSecret>(db, Prisma.sql`SELECT name, value_enc FROM secrets WHERE workspace_id = ${workspaceId}`);
  return openWorkspaceSecrets(box, workspaceId, rows);
}

/** Deletes a workspace secret; runs that still name it fail to resolve it from then on. */
export async function deleteSecret(db: Db, args: { workspaceId: string; name: string }): Promise<void> {
  const { count } = await db.secret.deleteMany({ where: { workspaceId: args.workspaceId, name: args.name } });
  if (count === 0) throw new AppError('not_found', `Secret ${args.name} not found`);
}
