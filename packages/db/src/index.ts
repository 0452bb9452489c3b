export { createDb } from './client';
export type { Db, DbHandle } from './client';
export { migrate, MigrationError, DEFAULT_MIGRATIONS_DIR } from './migrate';
export { isDatabaseUnavailable } from './unavailable';
export { inTransaction, PreparedSql, rowsOf } from './preparedSql';
export type { SqlSource } from './preparedSql';
export type { MigrationResult } from './migrate';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/models';
