import { Prisma } from './generated/prisma/client';

/** A query's one row as one JSON value (a scalar subquery), for a statement that reads it with other things. */
export function jsonRow(select: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT row_to_json(x) FROM (${select}) x)`;
}
