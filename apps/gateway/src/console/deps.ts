import { AppError } from '@svc/domain';
import type { Mailer } from '@svc/domain';
import { createSecretBox } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import type { GatewayDeps } from '../deps';

/** The gateway's dependencies plus the mailer for invitations and sign-in links. */
export type ConsoleDeps = GatewayDeps & { mailer: Mailer };

/** The box that seals secrets; pages that need one answer 503 on a server without a key. */
export function secretBoxOf(deps: ConsoleDeps): SecretBox {
  if (!deps.config.SVC_ENCRYPTION_KEY) throw new AppError('unavailable', 'The server has no encryption key configured');
  return createSecretBox(deps.config.SVC_ENCRYPTION_KEY, deps.config.SVC_ENCRYPTION_KEY_PREVIOUS);
}
