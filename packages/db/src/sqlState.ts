import { causeChain } from './causes';

/** What Prisma's driver adapter reports of a database error (its `cause`), at one level of an error. */
export function adapterCauseOf(e: Record<string, any>): Record<string, any> | undefined {
  return e.meta?.driverAdapterError?.cause ?? (e.name === 'DriverAdapterError' ? e.cause : undefined);
}

/**
 * The SQLSTATE of a PostgreSQL error, thrown by `pg` (its DatabaseError) or wrapped by Prisma (a
 * raw query's P2010, whose driver adapter error keeps the original code); undefined for others.
 */
export function sqlStateOf(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const adapter = adapterCauseOf(e);
    if (typeof adapter?.originalCode === 'string') return adapter.originalCode;
    // pg's DatabaseError: its code is the SQLSTATE (Prisma's own codes come without a severity).
    if (typeof e.code === 'string' && typeof e.severity === 'string') return e.code;
  }
  return undefined;
}
