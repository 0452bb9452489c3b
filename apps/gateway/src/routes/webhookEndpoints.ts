import type { IRouter } from 'express';
import { CreateEndpointBody, ListDeliveriesQuery, NoRequestBody, PageQuery, UpdateEndpointBody } from '@svc/contract';
import {
  AppError,
  createEndpoint,
  createEndpointUrlPolicy,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateEndpointSecret,
  updateEndpoint,
} from '@svc/domain';
import type { EndpointDeps } from '@svc/domain';
import { createSecretBox } from '@svc/signing';
import type { GatewayDeps } from '../deps';
import { parseBody, parseQuery } from '../http/validate';
import { principalOf, scope } from '../middleware/authenticate';
import { jsonBody } from '../middleware/jsonBody';

/** Endpoint bodies are small: a URL, a list of event types and a description. */
const ENDPOINT_BODY_LIMIT = 16 * 1024;

/** Outbound webhook endpoints and their delivery logs, added to `r`. */
export function webhookEndpointRoutes(r: IRouter, deps: GatewayDeps): void {
  const urls = createEndpointUrlPolicy({ allowHttp: deps.config.OUTBOUND_ALLOW_HTTP, allowCidrs: deps.config.OUTBOUND_ALLOW_CIDRS });
  const box = deps.config.SVC_ENCRYPTION_KEY
    ? createSecretBox(deps.config.SVC_ENCRYPTION_KEY, deps.config.SVC_ENCRYPTION_KEY_PREVIOUS)
    : undefined;
  const endpointDeps = (): EndpointDeps => {
    if (!box) throw new AppError('unavailable', 'Webhook secrets cannot be sealed: the server has no encryption key configured');
    return { prisma: deps.prisma, box, urls, secretOverlapMs: deps.config.WEBHOOK_SECRET_OVERLAP_MS };
  };
  const ws = (res: Parameters<typeof principalOf>[0]) => principalOf(res).workspaceId;

  r.post('/webhook-endpoints', scope('webhooks:write'), ...jsonBody(ENDPOINT_BODY_LIMIT), async (req, res) => {
    const body = parseBody(CreateEndpointBody, req.body);
    const created = await createEndpoint(endpointDeps(), {
      workspaceId: ws(res),
      url: body.url,
      eventTypes: body.event_types,
      description: body.description,
      enabled: body.enabled,
    });
    res.setHeader('Location', `/api/v1/webhook-endpoints/${created.id}`);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(created);
  });

  r.get('/webhook-endpoints', scope('webhooks:read'), async (req, res) => {
    const q = parseQuery(PageQuery, req.query);
    res.json(await listEndpoints(deps.prisma, { workspaceId: ws(res), limit: q.limit, cursor: q.cursor }));
  });

  r.get('/webhook-endpoints/:endpoint_id', scope('webhooks:read'), async (req, res) => {
    res.json(await getEndpoint(deps.prisma, { workspaceId: ws(res), endpointId: String(req.params.endpoint_id) }));
  });

  r.patch('/webhook-endpoints/:endpoint_id', scope('webhooks:write'), ...jsonBody(ENDPOINT_BODY_LIMIT), async (req, res) => {
    const body = parseBody(UpdateEndpointBody, req.body);
    res.json(
      await updateEndpoint(
        { prisma: deps.prisma, urls },
        {
          workspaceId: ws(res),
          endpointId: String(req.params.endpoint_id),
          url: body.url,
          eventTypes: body.event_types,
          description: body.description,
          enabled: body.enabled,
        },
      ),
    );
  });

  r.delete('/webhook-endpoints/:endpoint_id', scope('webhooks:write'), async (req, res) => {
    await deleteEndpoint(deps.prisma, { workspaceId: ws(res), endpointId: String(req.params.endpoint_id) });
    res.status(204).end();
  });

  r.post('/webhook-endpoints/:endpoint_id/rotate-secret', scope('webhooks:write'), ...jsonBody(ENDPOINT_BODY_LIMIT), async (req, res) => {
    parseBody(NoRequestBody, req.body);
    const rotated = await rotateEndpointSecret(endpointDeps(), { workspaceId: ws(res), endpointId: String(req.params.endpoint_id) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(rotated);
  });

  r.get('/webhook-endpoints/:endpoint_id/deliveries', scope('webhooks:read'), async (req, res) => {
    const q = parseQuery(ListDeliveriesQuery, req.query);
    res.json(
      await listDeliveries(deps.prisma, {
        workspaceId: ws(res),
        endpointId: String(req.params.endpoint_id),
        status: q.status,
        eventType: q.event_type,
        limit: q.limit,
        cursor: q.cursor,
      }),
    );
  });

  r.get('/webhook-endpoints/:endpoint_id/deliveries/:delivery_id', scope('webhooks:read'), async (req, res) => {
    res.json(
      await getDelivery(deps.prisma, {
        workspaceId: ws(res),
        endpointId: String(req.params.endpoint_id),
        deliveryId: String(req.params.delivery_id),
      }),
    );
  });

  r.post(
    '/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/retry',
    scope('webhooks:write'),
    ...jsonBody(ENDPOINT_BODY_LIMIT),
    async (req, res) => {
      parseBody(NoRequestBody, req.body);
      const delivery = await retryDelivery(deps.prisma, {
        workspaceId: ws(res),
        endpointId: String(req.params.endpoint_id),
        deliveryId: String(req.params.delivery_id),
      });
      res.status(202).json(delivery);
    },
  );
}
