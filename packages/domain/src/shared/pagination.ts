import { AppError } from '../errors';

/** Opaque cursor over a monotonically increasing `seq` column; pages are newest first. */
export function encodeCursor(seq: bigint): string {
  return Buffer.from(JSON.stringify({ s: seq.toString() })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): bigint | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof parsed.s === 'string' && /^\d{1,19}$/.test(parsed.s)) return BigInt(parsed.s);
  } catch {
    // fall through to the error below
  }
  throw new AppError('invalid_request', 'The cursor is not valid', {
    errors: [{ path: 'cursor', message: 'not a cursor returned by this API' }],
  });
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Builds a page from `limit + 1` rows fetched in `seq` descending order. */
export function toPage<R extends { seq: bigint }, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
  const more = rows.length > limit;
  const slice = more ? rows.slice(0, limit) : rows;
  return { data: slice.map(map), next_cursor: more ? encodeCursor(slice[slice.length - 1].seq) : null };
}
