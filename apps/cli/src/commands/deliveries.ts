import { Option } from 'commander';
import type { Command } from 'commander';
import { DELIVERY_STATUSES, getDelivery, listDeliveries, listOutboxEmails, retryDelivery } from '@svc/domain';
import type { DeliveryStatus } from '@svc/domain';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';
import { limitOption } from '../usage';

/** `svc deliveries …`: the outbound webhook delivery log. */
export function registerDeliveries(program: Command, run: Run): void {
  const d = program.command('deliveries').description('Outbound webhook deliveries');
  examples(d, 'svc deliveries list --endpoint we_123 --status failed');
  const list = d
    .command('list')
    .description("An endpoint's delivery log, newest first")
    .requiredOption('--endpoint <id>', 'webhook endpoint id (we_…)')
    .addOption(new Option('--status <status>', 'only deliveries in this status').choices(DELIVERY_STATUSES))
    .option('--event-type <type>', 'e.g. run.succeeded')
    .addOption(limitOption(50))
    .option('--cursor <cursor>', 'next_cursor of an earlier page')
    .action((o: { endpoint: string; status?: DeliveryStatus; eventType?: string; limit: number; cursor?: string }) =>
      run(
        (ctx) =>
          listDeliveries(ctx.db.prisma, {
            endpointId: o.endpoint,
            status: o.status,
            eventType: o.eventType,
            limit: o.limit,
            cursor: o.cursor,
          }),
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
  examples(
    list,
    'svc deliveries list --endpoint we_123',
    'svc deliveries list --endpoint we_123 --status failed --event-type run.failed --limit 10',
  );
  const show = d
    .command('show <deliveryId>')
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
  examples(show, 'svc deliveries show dlv_123');
  const retry = d
    .command('retry <deliveryId>')
    .description('Send a delivery again (a new attempt sequence, started by a worker within seconds)')
    .action((deliveryId: string) =>
      run(
        (ctx) => retryDelivery(ctx.db.prisma, { deliveryId }),
        (v) => `delivery ${v.id} queued again (status ${v.status})`,
      ),
    );
  examples(retry, 'svc deliveries retry dlv_123');
}

/** `svc mail list`: the mail outbox (no SMTP configured). */
export function registerMail(program: Command, run: Run): void {
  const mail = program.command('mail').description('Notification mail');
  examples(mail, 'svc mail list --to ops@acme.test');
  const list = mail
    .command('list')
    .description('Mail kept in the outbox because no SMTP_URL is configured, newest first')
    .option('--to <email>', 'only mail to this address')
    .addOption(limitOption(20))
    .action((o: { to?: string; limit: number }) =>
      run(
        async (ctx) => ({ data: await listOutboxEmails(ctx.db.prisma, { limit: o.limit, to: o.to }) }),
        (p) =>
          p.data.length === 0
            ? '(none)'
            : p.data
                .map((m) => [`#${m.id}  ${m.created_at}`, `To: ${m.to.join(', ')}`, `Subject: ${m.subject}`, '', m.text].join('\n'))
                .join('\n\n' + '-'.repeat(72) + '\n\n'),
      ),
    );
  examples(list, 'svc mail list', 'svc mail list --to ops@acme.test --limit 5');
}
