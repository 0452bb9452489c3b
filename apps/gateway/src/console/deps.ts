import { AppError } from '@svc/domain';
import type { Mailer } from '@svc/domain';
import { createSecretBox } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import type { GatewayDeps } from '../deps';
import type { ClientAddresses } from '../middleware/clientAddress';
import type { LiveHub } from './live';

/**
 * The gateway's dependencies plus the mailer for invitations and sign-in links, and the client
 * addresses the API's rate limits count (read through TRUSTED_PROXY_CIDRS), for the sign-in throttle,
 * and the hub of live pages.
 */
export type ConsoleDeps = GatewayDeps & { mailer: Mailer; addresses: ClientAddresses; live: LiveHub };

/** The box that seals secrets; pages that need one answer 503 on a server without a key. */
export function secretBoxOf(deps: ConsoleDeps): SecretBox {
  if (!deps.config.SVC_ENCRYPTION_KEY) throw new AppError('unavailable', 'The server has no encryption key configured');
  return createSecretBox(deps.config.SVC_ENCRYPTION_KEY, deps.config.SVC_ENCRYPTION_KEY_PREVIOUS);
}
