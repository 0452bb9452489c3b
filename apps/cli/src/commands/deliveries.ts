import type { Command } from 'commander';
import { DELIVERY_STATUSES, getDelivery, listDeliveries, listOutboxEmails, retryDelivery } from '@svc/domain';
import type { DeliveryStatus } from '@svc/domain';
import { table } from '../output';
import type { Run } from '../run';

function limitOf(v: string | undefined, fallback: number): number {
  const n = Number(v ?? fallback);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error('--limit must be a whole number from 1 to 100');
  return n;
}

/** `svc deliveries …`: the outbound webhook delivery log (API.md §7, §10). */
export function registerDeliveries(program: Command, run: Run): void {
  const d = program.command('deliveries').description('Outbound webhook deliveries');
  d.command('list')
    .description("An endpoint's delivery log, newest first")
    .requiredOption('--endpoint <id>', 'webhook endpoint id (we_…)')
    .option('--status <status>', `one of ${DELIVERY_STATUSES.join(', ')}`)
    .option('--event-type <type>', 'e.g. run.succeeded')
    .option('--limit <n>', '1–100 (default 50)')
    .option('--cursor <cursor>', 'next_cursor of an earlier page')
    .action((o: { endpoint: string; status?: string; eventType?: string; limit?: string; cursor?: string }) =>
      run(
        async (ctx) => {
          if (o.status && !(DELIVERY_STATUSES as readonly string[]).includes(o.status)) {
            throw new Error(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
          }
          return listDeliveries(ctx.db.prisma, {
            endpointId: o.endpoint,
            status: o.status as DeliveryStatus | undefined,
            eventType: o.eventType,
            limit: limitOf(o.limit, 50),
            cursor: o.cursor,
          });
        },
        (p) =>
          table(p.data, [
            'id',
            'event_type',
            'status',
            'attempt_count',
            'last_response_status',
            'last_attempt_at',
            'next_attempt_at',
            'event_id',
          ]) + (p.next_cursor ? `\nmore: --cursor ${p.next_cursor}` : ''),
      ),
    );
  d.command('show <deliveryId>')
    .description('One delivery with every attempt')
    .action((deliveryId: string) =>
      run(
        (ctx) => getDelivery(ctx.db.prisma, { deliveryId }),
        (v) =>
          [
            `delivery ${v.id} (${v.event_type}, event ${v.event_id}, endpoint ${v.endpoint_id})`,
            `status ${v.status}, ${v.attempt_count} attempt(s)${v.next_attempt_at ? `, next at ${v.next_attempt_at}` : ''}`,
            table(
              v.attempts.map((a) => ({ ...a, response_body_excerpt: a.response_body_excerpt.replace(/\s+/g, ' ').slice(0, 60) })),
              ['number', 'started_at', 'duration_ms', 'response_status', 'error', 'response_body_excerpt'],
            ),
          ].join('\n'),
      ),
    );
  d.command('retry <deliveryId>')
    .description('Send a delivery again (a new attempt sequence, started by a worker within seconds)')
    .action((deliveryId: string) =>
      run(
        (ctx) => retryDelivery(ctx.db.prisma, { deliveryId }),
        (v) => `delivery ${v.id} queued again (status ${v.status})`,
      ),
    );
}

/** `svc mail list`: the mail outbox (no SMTP configured). */
export function registerMail(program: Command, run: Run): void {
  program
    .command('mail')
    .description('Notification mail')
    .command('list')
    .description('Mail kept in the outbox because no SMTP_URL is configured, newest first')
    .option('--to <email>', 'only mail to this address')
    .option('--limit <n>', '1–100 (default 20)')
    .action((o: { to?: string; limit?: string }) =>
      run(
        async (ctx) => ({ data: await listOutboxEmails(ctx.db.prisma, { limit: limitOf(o.limit, 20), to: o.to }) }),
        (p) =>
          p.data.length === 0
            ? '(none)'
            : p.data
                .map((m) => [`#${m.id}  ${m.created_at}`, `To: ${m.to.join(', ')}`, `Subject: ${m.subject}`, '', m.text].join('\n'))
                .join('\n\n' + '-'.repeat(72) + '\n\n'),
      ),
    );
}
