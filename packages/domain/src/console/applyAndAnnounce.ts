import type { Db } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { recordEventAndDeliveries } from '../webhooks/fanOut';
import { applyWorkflow } from '../workflows/workflows';
import type { ApplyArgs, ApplyResult } from '../workflows/workflows';

/**
 * Applies a definition and raises workflow.updated once per version: the
 * event and its deliveries are written in one transaction (the outbox) and the workers
 * start the delivery workflows. Re-applying an unchanged definition records the event of
 * the current version if an interrupted earlier apply did not get to it (the dedupe key
 * makes it a no-op otherwise). The CLI's `workflows apply` and the console's editor.
 */
export async function applyWorkflowAndAnnounce(db: Db, box: SecretBox, args: ApplyArgs): Promise<ApplyResult> {
  const result = await applyWorkflow(db, box, args);
  const w = result.workflow;
  if (result.change === 'updated' || (result.change === 'unchanged' && w.version > 1)) {
    await recordEventAndDeliveries(db, {
      workspaceId: args.workspaceId,
      type: 'workflow.updated',
      dedupeKey: `${w.id}:v${w.version}`,
      data: w,
    });
  }
  return result;
}
