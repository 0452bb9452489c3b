import type { Db } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { secretsUsedBy } from '../expressions/secretReferences';
import { openWorkspaceSecrets } from '../secrets/secrets';
import { pinnedDefinition } from './definitionCache';
import type { RunData } from './runStore';

/**
 * The workspace secrets a run's pinned definition reads, opened (for use inside an activity
 * only): just those its expressions and templates name, or all of them when one of its
 * expressions may read any. What is not opened is neither seen by an expression nor redacted.
 */
export async function openRunSecrets(db: Db, box: SecretBox, workspaceId: string, data: RunData): Promise<Record<string, string>> {
  const used = secretsUsedBy(await pinnedDefinition(db, data.workflowId, data.workflowVersion));
  return openWorkspaceSecrets(box, workspaceId, used === 'all' ? data.secrets : data.secrets.filter((s) => used.has(s.name)));
}
