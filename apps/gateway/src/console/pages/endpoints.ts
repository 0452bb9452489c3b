import { Router } from 'express';
import type { Request, Response } from 'express';
import {
  AppError,
  createEndpoint,
  createEndpointUrlPolicy,
  EVENT_TYPES,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '@svc/domain';
import type { EndpointDeps, WebhookEndpointView } from '@svc/domain';
import { secretBoxOf } from '../deps';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { layout } from '../layout';
import { isAdmin } from '../roles';
import { sendPage } from '../session';
import { time } from '../time';

function endpointForm(csrf: string, action: string, e: Partial<WebhookEndpointView>, button: string): Safe {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="ep-url">URL (https)</label><input id="ep-url" name="url" type="url" required value="${e.url ?? ''}" size="50" />
    <label for="ep-description">Description</label
    ><input id="ep-description" name="description" value="${e.description ?? ''}" maxlength="500" />
    <fieldset>
      <legend>Events</legend>
      ${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="event_types" value="${t}" ${e.event_types?.includes(t) ? 'checked' : ''} /> ${t}</label>`)}
    </fieldset>
    <p><button type="submit">${button}</button></p>
  </form>`;
}

const listOf = (v: unknown) => ([] as unknown[]).concat(v ?? []).map(String);

/** Outbound webhook endpoints through the same use cases as the API (admins manage, members read). */
export function endpointPages(deps: ConsoleDeps): Router {
  const r = Router();
  const urls = createEndpointUrlPolicy({ allowHttp: deps.config.OUTBOUND_ALLOW_HTTP, allowCidrs: deps.config.OUTBOUND_ALLOW_CIDRS });
  const endpointDeps = (): EndpointDeps => ({
    prisma: deps.prisma,
    box: secretBoxOf(deps),
    urls,
    secretOverlapMs: deps.config.WEBHOOK_SECRET_OVERLAP_MS,
  });

  async function listPage(req: Request, res: Response, extra: Safe | '' = '', status = 200) {
    const s = req.consoleSession!;
    const page = await listEndpoints(deps.prisma, { workspaceId: s.workspaceId, limit: 100 });
    sendPage(
      res,
      status,
      layout({
        title: 'Webhooks',
        session: s,
        body: html`<h1>Webhook endpoints</h1>
          ${extra}
          <section>
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                ${page.data.map(
                  (e) =>
                    html`<tr>
                      <td>
                        <a href="/console/endpoints/${e.id}">${e.url}</a>
                        <div class="muted">${e.description}</div>
                      </td>
                      <td>${e.event_types.join(', ')}</td>
                      <td>${e.status}${e.disabled_reason ? html` (${e.disabled_reason})` : ''}</td>
                    </tr>`,
                )}
                ${
                  page.data.length
                    ? ''
                    : html`<tr>
                        <td colspan="3" class="muted">No endpoints.</td>
                      </tr>`
                }
              </tbody>
            </table>
          </section>
          ${
            isAdmin(s)
              ? html`<section>
                  <h2>Add an endpoint</h2>
                  ${endpointForm(s.csrfToken, '/console/endpoints', { event_types: ['run.succeeded', 'run.failed'] }, 'Create endpoint')}
                </section>`
              : ''
          }`,
      }),
    );
  }

  async function endpointPage(req: Request, res: Response, extra: Safe | '' = '', status = 200, endpointId = String(req.params.id)) {
    const s = req.consoleSession!;
    const e = await getEndpoint(deps.prisma, { workspaceId: s.workspaceId, endpointId });
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor.slice(0, 200) : undefined;
    const deliveries = await listDeliveries(deps.prisma, { workspaceId: s.workspaceId, endpointId: e.id, limit: 25, cursor });
    const admin = isAdmin(s);
    const post = (path: string, label: string, cls = '') =>
      html`<form method="post" action="/console/endpoints/${e.id}/${path}" class="inline">
        <input type="hidden" name="_csrf" value="${s.csrfToken}" /><button type="submit" class="${cls}">${label}</button>
      </form>`;
    sendPage(
      res,
      status,
      layout({
        title: `Endpoint ${e.url}`,
        session: s,
        body: html`<section>
            <h1>Endpoint</h1>
            ${extra}
            <p><code>${e.url}</code> · ${e.status}${e.disabled_reason ? html` (${e.disabled_reason})` : ''}</p>
            <p>Events: ${e.event_types.join(', ')}</p>
            ${
              admin
                ? html`<p>
                      ${e.status === 'enabled' ? post('disable', 'Disable', 'danger') : post('enable', 'Enable', 'ok')}
                      ${post('rotate', 'Rotate secret')}
                    </p>
                    ${
                      e.status === 'enabled'
                        ? html`<form method="post" action="/console/endpoints/${e.id}/test" class="inline">
                            <input type="hidden" name="_csrf" value="${s.csrfToken}" />
                            <label for="test-type">Test event type</label>
                            <select id="test-type" name="type">
                              ${e.event_types.map((t) => html`<option value="${t}">${t}</option>`)}
                            </select>
                            <button type="submit">Send test event</button>
                          </form>`
                        : ''
                    }
                    <h2>Edit</h2>
                    ${endpointForm(s.csrfToken, `/console/endpoints/${e.id}`, e, 'Save endpoint')}`
                : ''
            }
          </section>
          <section>
            <h2>Deliveries</h2>
            <div hx-ext="sse" sse-connect="/console/live/endpoints/${e.id}">
              <div
                id="deliveries"
                hx-get="/console/endpoints/${e.id}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}"
                hx-trigger="sse:deliveries delay:300ms"
                hx-select="#deliveries"
                hx-swap="outerHTML"
              >
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Event</th>
                        <th scope="col">Status</th>
                        <th scope="col">Attempts</th>
                        <th scope="col">Last response</th>
                        <th scope="col">Next attempt</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${deliveries.data.map(
                        (d) =>
                          html`<tr class="delivery">
                            <td><a href="/console/endpoints/${e.id}/deliveries/${d.id}">${d.event_type}</a></td>
                            <td>${d.status}</td>
                            <td>${d.attempt_count}</td>
                            <td>${d.last_response_status ?? '—'}</td>
                            <td>${time(d.next_attempt_at)}</td>
                          </tr>`,
                      )}
                      ${
                        deliveries.data.length
                          ? ''
                          : html`<tr>
                              <td colspan="5" class="muted">No deliveries yet.</td>
                            </tr>`
                      }
                    </tbody>
                  </table>
                </div>
              </div>
            </div>
            ${deliveries.next_cursor ? html`<p><a rel="next" href="/console/endpoints/${e.id}?cursor=${deliveries.next_cursor}">Older deliveries →</a></p>` : ''}
          </section>`,
      }),
    );
  }

  r.get('/endpoints', (req, res) => listPage(req, res));

  r.post('/endpoints', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    try {
      const created = await createEndpoint(endpointDeps(), {
        workspaceId: s.workspaceId,
        url: String(body.url ?? ''),
        eventTypes: listOf(body.event_types),
        description: String(body.description ?? ''),
      });
      await endpointPage(
        req,
        res,
        html`<p class="notice" role="status">Endpoint created. Its signing secret, shown only now:</p>
          <p class="secret" id="new-secret">${created.secret}</p>`,
        201,
        created.id,
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      await listPage(req, res, html`<p class="notice error" role="alert">${err.message}</p>`, 400);
    }
  });

  r.get('/endpoints/:id', (req, res) => endpointPage(req, res));

  r.post('/endpoints/:id', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    await updateEndpoint(endpointDeps(), {
      workspaceId: s.workspaceId,
      endpointId: String(req.params.id),
      url: String(body.url ?? ''),
      eventTypes: listOf(body.event_types),
      description: String(body.description ?? ''),
    });
    res.redirect(303, `/console/endpoints/${encodeURIComponent(String(req.params.id))}`);
  });

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    r.post(`/endpoints/:id/${path}`, async (req, res) => {
      await updateEndpoint(endpointDeps(), { workspaceId: req.consoleSession!.workspaceId, endpointId: String(req.params.id), enabled });
      res.redirect(303, `/console/endpoints/${encodeURIComponent(String(req.params.id))}`);
    });
  }

  // An event of a subscribed type with `data.test = true`, to this endpoint only; its delivery
  // shows in the log below like any other.
  r.post('/endpoints/:id/test', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    const sent = await sendTestEvent(deps.prisma, {
      workspaceId: s.workspaceId,
      endpointId: String(req.params.id),
      type: String(body.type ?? ''),
      sentBy: s.email,
    });
    await endpointPage(
      req,
      res,
      html`<p class="notice" role="status">Test event ${sent.event.id} (${sent.event.type}) queued for delivery.</p>`,
    );
  });

  r.post('/endpoints/:id/rotate', async (req, res) => {
    const rotated = await rotateEndpointSecret(endpointDeps(), {
      workspaceId: req.consoleSession!.workspaceId,
      endpointId: String(req.params.id),
    });
    await endpointPage(
      req,
      res,
      html`<p class="notice" role="status">
          New signing secret, shown only now (the previous one still signs until ${rotated.previous_secret_expires_at}):
        </p>
        <p class="secret" id="new-secret">${rotated.secret}</p>`,
    );
  });

  r.get('/endpoints/:id/deliveries/:delivery', async (req, res) => {
    const s = req.consoleSession!;
    const d = await getDelivery(deps.prisma, {
      workspaceId: s.workspaceId,
      endpointId: String(req.params.id),
      deliveryId: String(req.params.delivery),
    });
    sendPage(
      res,
      200,
      layout({
        title: 'Delivery',
        session: s,
        body: html`<section>
          <h1>Delivery <code>${d.id}</code></h1>
          <p>${d.event_type} · event <code>${d.event_id}</code> · ${d.status} · ${d.attempt_count} attempts</p>
          ${isAdmin(s) ? html`<form method="post" action="/console/endpoints/${d.endpoint_id}/deliveries/${d.id}/retry"><input type="hidden" name="_csrf" value="${s.csrfToken}" /><button type="submit">Retry delivery</button></form>` : ''}
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Response</th>
                <th scope="col">Error</th>
                <th scope="col">Body (excerpt)</th>
              </tr>
            </thead>
            <tbody>
              ${d.attempts.map(
                (a) =>
                  html`<tr class="attempt">
                    <td>${a.number}</td>
                    <td>${a.started_at}</td>
                    <td>${a.duration_ms} ms</td>
                    <td>${a.response_status || '—'}</td>
                    <td>${a.error ?? ''}</td>
                    <td><code>${a.response_body_excerpt.slice(0, 200)}</code></td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>`,
      }),
    );
  });

  r.post('/endpoints/:id/deliveries/:delivery/retry', async (req, res) => {
    const s = req.consoleSession!;
    await retryDelivery(deps.prisma, {
      workspaceId: s.workspaceId,
      endpointId: String(req.params.id),
      deliveryId: String(req.params.delivery),
    });
    res.redirect(
      303,
      `/console/endpoints/${encodeURIComponent(String(req.params.id))}/deliveries/${encodeURIComponent(String(req.params.delivery))}`,
    );
  });
  return r;
}
