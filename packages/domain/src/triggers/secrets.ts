import type { Db } from '@svc/db';
import type { SecretBox } from '@svc/signing';
import { AppError } from '../errors';
import { sealedContext } from '../secrets/contexts';
import { rotateSecret, secretsInForce } from '../shared/secretRotation';
import { newTriggerSecrets, showTrigger } from '../workflows/workflows';
import type { TriggerSecrets } from '../workflows/workflows';

interface TriggerSecretColumns {
  id: string;
  workspaceId: string;
  triggerSecretEnc: string;
  triggerSigningSecretEnc: string;
  triggerPreviousSecretEnc: string | null;
  triggerPreviousSigningSecretEnc: string | null;
  triggerPreviousExpiresAt: Date | null;
}

/** The secrets `/hooks` accepts now, newest first: the previous pair only while its overlap lasts. */
export function triggerSecretsInForce(box: SecretBox, row: TriggerSecretColumns, now = new Date()) {
  const previousExpiresAt = row.triggerPreviousExpiresAt;
  return {
    secrets: secretsInForce(
      box,
      { currentEnc: row.triggerSecretEnc, previousEnc: row.triggerPreviousSecretEnc, previousExpiresAt },
      sealedContext.triggerSecret(row.workspaceId, row.id),
      now,
    ),
    signingSecrets: secretsInForce(
      box,
      { currentEnc: row.triggerSigningSecretEnc, previousEnc: row.triggerPreviousSigningSecretEnc, previousExpiresAt },
      sealedContext.triggerSigningSecret(row.workspaceId, row.id),
      now,
    ),
  };
}

/**
 * `svc triggers rotate`: a new secret and signing secret; the current pair stays
 * valid for `overlapMs` (24 h) so senders can switch without a refused delivery. The trigger
 * URL does not change.
 */
export async function rotateTriggerSecrets(
  db: Db,
  box: SecretBox,
  args: { workflowId: string; overlapMs: number; baseUrl: string },
): Promise<TriggerSecrets> {
  const fresh = newTriggerSecrets();
  await db.$transaction(async (tx) => {
    const [current] = await tx.$queryRaw<{ secret: string; signing: string; workspace_id: string }[]>`
      SELECT trigger_secret_enc AS secret, trigger_signing_secret_enc AS signing, workspace_id
        FROM workflows WHERE id = ${args.workflowId} FOR UPDATE`;
    if (!current) throw new AppError('workflow_not_found', `Workflow ${args.workflowId} not found`);
    const now = new Date();
    const overlapMs = args.overlapMs;
    const secret = rotateSecret(box, current.secret, fresh.secret, {
      now,
      overlapMs,
      context: sealedContext.triggerSecret(current.workspace_id, args.workflowId),
    });
    const signing = rotateSecret(box, current.signing, fresh.signingSecret, {
      now,
      overlapMs,
      context: sealedContext.triggerSigningSecret(current.workspace_id, args.workflowId),
    });
    await tx.workflow.update({
      where: { id: args.workflowId },
      data: {
        triggerSecretEnc: secret.currentEnc,
        triggerSigningSecretEnc: signing.currentEnc,
        triggerPreviousSecretEnc: secret.previousEnc,
        triggerPreviousSigningSecretEnc: signing.previousEnc,
        triggerPreviousExpiresAt: secret.previousExpiresAt,
      },
    });
  });
  return showTrigger(db, box, { workflowId: args.workflowId, baseUrl: args.baseUrl });
}
