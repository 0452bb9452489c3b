import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Client } from '@temporalio/client';
import type { Config, Logger } from '@svc/config';
import type { Db, SqlSource } from '@svc/db';
import { createAddressPolicy, createGuardedDispatcher, createMailer } from '@svc/domain';
import type { WebhookRuntime } from '../activities/deliveryActivities';
import { createDeliveryStarter } from './deliveryStarter';

type WebhookConfig = Pick<
  Config,
  | 'OUTBOUND_ALLOW_CIDRS'
  | 'OUTBOUND_CA_FILE'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_AFTER_MAX_MS'
  | 'WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE'
  | 'SMTP_URL'
  | 'MAIL_FROM'
  | 'BASE_URL'
>;

/** Node's default roots plus the operator's CA file (a private CA, or a test's self-signed receiver). */
export function outboundCa(caFile: string | undefined): string[] | undefined {
  if (!caFile) return undefined;
  return [...rootCertificates, readFileSync(caFile, 'utf8')];
}

/** config → what webhook delivery needs in a worker: guarded dispatcher, mailer, workflow starter. */
export function createWebhookRuntime(deps: {
  config: WebhookConfig;
  prisma: Db;
  /** Named statements on the same pool: a delivery's start is marked with one. */
  sql: SqlSource;
  client: Client;
  taskQueue: string;
  /** `client` is on the NativeConnection of this process's delivery Worker (DeliveryStarterOptions.eager). */
  eagerStart: boolean;
  logger: Pick<Logger, 'info' | 'warn'>;
}): WebhookRuntime {
  const { config } = deps;
  const ca = outboundCa(config.OUTBOUND_CA_FILE);
  return {
    dispatcher: createGuardedDispatcher({
      policy: createAddressPolicy({ allowCidrs: config.OUTBOUND_ALLOW_CIDRS }),
      connectTimeoutMs: Math.min(10_000, config.WEBHOOK_TIMEOUT_MS),
      ...(ca ? { tls: { ca } } : {}),
    }),
    mailer: createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger: deps.logger, db: deps.prisma }),
    starter: createDeliveryStarter({
      client: deps.client,
      db: deps.sql,
      taskQueue: deps.taskQueue,
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
      attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      eager: deps.eagerStart,
    }),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryAfterMaxMs: config.WEBHOOK_RETRY_AFTER_MAX_MS,
    maxInFlightPerWorkspace: config.WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE,
    baseUrl: config.BASE_URL,
  };
}
