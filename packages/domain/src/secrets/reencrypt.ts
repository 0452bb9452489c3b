import { Prisma } from '@svc/db';
import type { Db } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { SEALED_TABLES } from './sealedColumns';
import type { SealedRow, SealedTable } from './sealedColumns';

/** Values re-encrypted, by kind (`workspace_secrets`, `trigger_secrets`, …). */
export type ReencryptCounts = Record<string, number>;

/** A row changed by someone else between our read and our write is read again, at most this often. */
const MAX_TRIES = 5;

const ident = (name: string) => Prisma.raw(`"${name}"`);
const list = (names: string[]) => Prisma.join(names.map(ident));
const selected = (t: SealedTable) => list([...new Set([...t.keys, 'workspace_id', ...t.columns.map((c) => c.column)])]);
const keyMatch = (t: SealedTable, row: SealedRow) =>
  Prisma.join(
    t.keys.map((k) => Prisma.sql`${ident(k)} = ${row[k]}`),
    ' AND ',
  );
const rowName = (t: SealedTable, row: SealedRow) => `${t.table} ${t.keys.map((k) => row[k]).join('/')}`;

/** The next rows after `after` (key order) holding a value not sealed under the current key. */
function staleRows(db: Db, box: SecretBox, t: SealedTable, after: SealedRow | undefined, batch: number) {
  const past = after ? Prisma.sql`(${list(t.keys)}) > (${Prisma.join(t.keys.map((k) => after[k]))})` : Prisma.sql`TRUE`;
  const stale = Prisma.join(
    t.columns.map((c) => Prisma.sql`NOT starts_with(${ident(c.column)}, ${box.currentPrefix})`),
    ' OR ',
  );
  return db.$queryRaw<SealedRow[]>`
    SELECT ${selected(t)} FROM ${ident(t.table)} WHERE ${past} AND (${stale}) ORDER BY ${list(t.keys)} LIMIT ${batch}`;
}

function resealed(box: SecretBox, t: SealedTable, row: SealedRow): (string | null)[] {
  return t.columns.map((c) => {
    const value = row[c.column];
    if (value === null || value.startsWith(box.currentPrefix)) return value;
    let plain: string;
    try {
      plain = box.open(value, c.context(row));
    } catch (err) {
      throw new Error(`Cannot open the ${c.column} of ${rowName(t, row)}: ${(err as Error).message}`);
    }
    return box.seal(plain, c.context(row));
  });
}

/**
 * Writes a row's re-sealed values in one statement that applies only if the row still holds
 * what was read, so a concurrent write (a secret set, an endpoint secret rotated) is never
 * overwritten. False when the row changed meanwhile.
 */
async function writeResealed(db: Db, box: SecretBox, t: SealedTable, row: SealedRow, counts: ReencryptCounts): Promise<boolean> {
  const next = resealed(box, t, row);
  const changed = t.columns.filter((c, i) => next[i] !== row[c.column]);
  if (changed.length === 0) return true;
  const sets = Prisma.join(t.columns.map((c, i) => Prisma.sql`${ident(c.column)} = ${next[i]}`));
  const unchanged = Prisma.join(
    t.columns.map((c) => Prisma.sql`${ident(c.column)} IS NOT DISTINCT FROM ${row[c.column]}`),
    ' AND ',
  );
  const written = await db.$executeRaw`UPDATE ${ident(t.table)} SET ${sets} WHERE ${keyMatch(t, row)} AND ${unchanged}`;
  if (written !== 1) return false;
  for (const c of changed) counts[c.kind] += 1;
  return true;
}

/** Re-seals one row, reading it again as long as someone else changes it first (a deleted row is done). */
async function reencryptRow(db: Db, box: SecretBox, t: SealedTable, first: SealedRow, counts: ReencryptCounts) {
  let row: SealedRow | undefined = first;
  for (let tries = 1; row; tries++) {
    if (await writeResealed(db, box, t, row, counts)) return;
    if (tries === MAX_TRIES) throw new Error(`${rowName(t, row)} kept changing during re-encryption; run the command again`);
    [row] = await db.$queryRaw<SealedRow[]>`SELECT ${selected(t)} FROM ${ident(t.table)} WHERE ${keyMatch(t, row)}`;
  }
}

/**
 * Re-seals every sealed value that is not under the current key and format (previous keys,
 * legacy `v1` values) with the current key and its context: rows are walked in key order, a
 * batch at a time, and each row is written on its own. Idempotent: a second run finds nothing.
 * The box must hold the previous keys, or the values they sealed cannot be opened.
 */
export async function reencryptSecrets(db: Db, box: SecretBox, opts: { batch?: number } = {}): Promise<ReencryptCounts> {
  const batch = opts.batch ?? 500;
  const counts: ReencryptCounts = Object.fromEntries(SEALED_TABLES.flatMap((t) => t.columns.map((c) => [c.kind, 0])));
  for (const t of SEALED_TABLES) {
    let after: SealedRow | undefined;
    for (;;) {
      const rows = await staleRows(db, box, t, after, batch);
      for (const row of rows) await reencryptRow(db, box, t, row, counts);
      if (rows.length < batch) break;
      after = rows[rows.length - 1];
    }
  }
  return counts;
}
