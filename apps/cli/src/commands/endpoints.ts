import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { createEndpoint, createEndpointUrlPolicy, EVENT_TYPES, listEndpoints, rotateEndpointSecret, updateEndpoint } from '@svc/domain';
import type { EndpointDeps, WebhookEndpointView } from '@svc/domain';
import type { CliContext } from '../context';
import { examples } from '../help';
import { table } from '../output';
import type { Run } from '../run';
import { commaList, limitOption } from '../usage';

/** The same use cases as the API, with the operator's URL policy (OUTBOUND_ALLOW_*). */
function endpointDeps(ctx: CliContext): EndpointDeps {
  return {
    prisma: ctx.db.prisma,
    box: ctx.box(),
    urls: createEndpointUrlPolicy({ allowHttp: ctx.config.OUTBOUND_ALLOW_HTTP, allowCidrs: ctx.config.OUTBOUND_ALLOW_CIDRS }),
    secretOverlapMs: ctx.config.WEBHOOK_SECRET_OVERLAP_MS,
  };
}

function eventTypes(value: string): string[] {
  const types = commaList(value);
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`Expected a comma-separated list of ${EVENT_TYPES.join(', ')}.`);
  }
  return types;
}

const endpointLine = (e: WebhookEndpointView) =>
  `endpoint ${e.id} ${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ''}: ${e.url} [${e.event_types.join(', ')}]`;

/** `svc endpoints …`: outbound webhook endpoints, as the API manages them. */
export function registerEndpoints(program: Command, run: Run): void {
  const ep = program.command('endpoints').description('Outbound webhook endpoints and their signing secrets');
  examples(ep, 'svc endpoints create --workspace ws_123 --url https://hooks.acme.test/svc --events run.succeeded,run.failed');

  examples(
    ep
      .command('list')
      .description("A workspace's webhook endpoints, newest first (never their secrets)")
      .requiredOption('--workspace <id>', 'workspace id')
      .addOption(limitOption(20))
      .option('--cursor <cursor>', 'next_cursor of an earlier page')
      .action((o: { workspace: string; limit: number; cursor?: string }) =>
        run(
          (ctx) => listEndpoints(ctx.db.prisma, { workspaceId: o.workspace, limit: o.limit, cursor: o.cursor }),
          (p) =>
            table(p.data, ['id', 'status', 'url', 'event_types', 'description', 'disabled_reason']) +
            (p.next_cursor ? `\nmore: --cursor ${p.next_cursor}` : ''),
        ),
      ),
    'svc endpoints list --workspace ws_123',
  );

  examples(
    ep
      .command('create')
      .description('Subscribe a URL to events; prints its signing secret, the only time it is shown')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--url <url>', 'the https URL that receives the events')
      .requiredOption('--events <types>', `comma-separated event types: ${EVENT_TYPES.join(', ')}`, eventTypes)
      .option('--description <text>', 'a note for people')
      .option('--disabled', 'create it disabled (enable it with the API or the console)')
      .action((o: { workspace: string; url: string; events: string[]; description?: string; disabled?: boolean }) =>
        run(
          (ctx) =>
            createEndpoint(endpointDeps(ctx), {
              workspaceId: o.workspace,
              url: o.url,
              eventTypes: o.events,
              description: o.description,
              enabled: !o.disabled,
            }),
          (e) => `${endpointLine(e)}\nsigning secret: ${e.secret}\n\nThis is the only time the secret is shown.`,
        ),
      ),
    'svc endpoints create --workspace ws_123 --url https://hooks.acme.test/svc --events run.succeeded,run.failed --description ops',
  );

  examples(
    ep
      .command('rotate <endpointId>')
      .description('A new signing secret, printed once; the previous one keeps signing for WEBHOOK_SECRET_OVERLAP_MS (24 h)')
      .action((endpointId: string) =>
        run(
          (ctx) => rotateEndpointSecret(endpointDeps(ctx), { endpointId }),
          (r) => `signing secret: ${r.secret}\nthe previous secret keeps signing until ${r.previous_secret_expires_at}`,
        ),
      ),
    'svc endpoints rotate we_123',
  );

  examples(
    ep
      .command('disable <endpointId>')
      .description('Stop delivering to an endpoint; its pending deliveries stop too')
      .action((endpointId: string) => run((ctx) => updateEndpoint(endpointDeps(ctx), { endpointId, enabled: false }), endpointLine)),
    'svc endpoints disable we_123',
  );
}
