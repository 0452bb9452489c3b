import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { statusBadge } from './runs';

/** The events a run raised and their deliveries to each endpoint. */
export async function runEvents(deps: ConsoleDeps, runId: string, workspaceId: string): Promise<Safe> {
  // Run events carry the run view (`id`), review events the review view (`run_id`).
  const events = await deps.prisma.event.findMany({
    where: { workspaceId, OR: [{ data: { path: ['id'], equals: runId } }, { data: { path: ['run_id'], equals: runId } }] },
    orderBy: { seq: 'asc' },
  });
  if (!events.length) return html``;
  const deliveries = await deps.prisma.webhookDelivery.findMany({
    where: { workspaceId, eventId: { in: events.map((e) => e.id) } },
    include: { endpoint: { select: { url: true } } },
  });
  return html`<section>
    <h2>Events</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">Deliveries</th>
          </tr>
        </thead>
        <tbody>
          ${events.map(
            (e) =>
              html`<tr>
                <td><code>${e.id}</code></td>
                <td>${e.type}</td>
                <td>
                  ${deliveries
                    .filter((d) => d.eventId === e.id)
                    .map(
                      (d) =>
                        html`<div>
                          <a href="/console/endpoints/${d.endpointId}">${d.endpoint.url}</a> ${statusBadge(d.status)} (${d.attemptCount}
                          attempts${d.lastResponseStatus ? `, last HTTP ${d.lastResponseStatus}` : ''})
                        </div>`,
                    )}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
