import { LRUCache } from 'lru-cache';
import type { Db } from '@svc/db';
import type { WorkflowDefinition } from '../definitions';

/** Pinned definitions kept in this process; a definition is a few KB, so this stays small. */
const MAX_CACHED_VERSIONS = 1_000;

const cache = new LRUCache<string, WorkflowDefinition>({ max: MAX_CACHED_VERSIONS });

/**
 * The definition of one workflow version. A version is never changed once written (an update
 * writes a new one), so it is read from PostgreSQL once per process and then served from a
 * bounded LRU: the run-start hot path costs no query for it.
 */
export async function pinnedDefinition(db: Db, workflowId: string, version: number): Promise<WorkflowDefinition> {
  const key = `${workflowId}@${version}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const row = await db.workflowVersion.findUniqueOrThrow({
    where: { workflowId_version: { workflowId, version } },
    select: { definition: true },
  });
  const definition = row.definition as unknown as WorkflowDefinition;
  cache.set(key, definition);
  return definition;
}
