import type { Mailer } from '@svc/domain';
import type { GatewayDeps } from '../deps';

/** The gateway's dependencies plus the mailer for invitations and sign-in links. */
export type ConsoleDeps = GatewayDeps & { mailer: Mailer };
