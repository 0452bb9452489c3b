import { AppError } from '../errors';

/** The largest `seq` PostgreSQL's bigint holds: a cursor beyond it means "from the newest". */
const MAX_SEQ = (1n << 63n) - 1n;

/**
 * Opaque cursor over a monotonically increasing `seq` column; pages are newest first. It is
 * the seq as 8 bytes big-endian in base64url: always 11 characters, the last one of a small
 * set (the contract's CURSOR_PATTERN). Every string of that shape is a valid cursor, so the
 * published pattern is exactly what the server accepts.
 */
export function encodeCursor(seq: bigint): string {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(seq < 0n ? 0n : seq);
  return buf.toString('base64url');
}

const CURSOR = /^[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$/;

export function decodeCursor(cursor: string | undefined): bigint | undefined {
  if (cursor === undefined) return undefined;
  if (!CURSOR.test(cursor)) {
    throw new AppError('invalid_request', 'The cursor is not valid', {
      errors: [{ path: 'cursor', message: 'not a cursor returned by this API' }],
    });
  }
  const seq = Buffer.from(cursor, 'base64url').readBigUInt64BE(0);
  return seq > MAX_SEQ ? MAX_SEQ : seq;
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
