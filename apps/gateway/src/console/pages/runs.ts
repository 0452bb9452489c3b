import { Router } from 'express';
import type { Request } from 'express';
import { listWorkspaceRuns } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import { layout } from '../layout';
import { sendPage } from '../session';
import { RUN_STATUS_LIST } from '../statuses';
import { duration, time } from '../time';

const ID = /^[a-z]+_[0-9a-z]{1,64}$/;

export const statusBadge = (s: string) => html`<span class="status status-${s}">${s.replace(/_/g, ' ')}</span>`;

function q(req: Request, name: string): string {
  const v = req.query[name];
  return typeof v === 'string' ? v.trim().slice(0, 100) : '';
}

function dateParam(v: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const d = new Date(`${v}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The runs list: filters, cursor pages, and live updates of the page shown (its cursor kept). */
export function runListPages(deps: ConsoleDeps): Router {
  const r = Router();
  r.get('/runs', async (req, res) => {
    const s = req.consoleSession!;
    const f = {
      status: q(req, 'status'),
      workflow: q(req, 'workflow'),
      trigger: q(req, 'trigger'),
      from: q(req, 'from'),
      to: q(req, 'to'),
    };
    const cursor = q(req, 'cursor') || undefined;
    const page = await listWorkspaceRuns(deps.prisma, {
      workspaceId: s.workspaceId,
      filters: {
        status: RUN_STATUS_LIST.includes(f.status) ? f.status : undefined,
        workflowId: ID.test(f.workflow) ? f.workflow : undefined,
        trigger: f.trigger === 'api' || f.trigger === 'webhook' ? f.trigger : undefined,
        from: dateParam(f.from),
        to: dateParam(f.to) ? new Date(dateParam(f.to)!.getTime() + 86_400_000) : undefined,
      },
      limit: 25,
      cursor,
    });
    const workflows = await deps.prisma.workflow.findMany({
      where: { workspaceId: s.workspaceId },
      select: { id: true, name: true },
      orderBy: { name: 'asc' },
    });
    const params = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
    const self = `/console/runs?${new URLSearchParams([...params, ...(cursor ? [['cursor', cursor] as [string, string]] : [])])}`;
    const next = page.next_cursor ? `/console/runs?${new URLSearchParams([...params, ['cursor', page.next_cursor]])}` : null;
    const select = (id: string, label: string, name: string, options: Array<[string, string]>, chosen: string) =>
      html`<div>
        <label for="${id}">${label}</label
        ><select id="${id}" name="${name}">
          <option value="">any</option>
          ${options.map(([v, text]) => html`<option value="${v}" ${v === chosen ? 'selected' : ''}>${text}</option>`)}
        </select>
      </div>`;
    sendPage(
      res,
      200,
      layout({
        title: 'Runs',
        session: s,
        body: html`<section hx-ext="sse" sse-connect="/console/live/runs">
          <h1>Runs</h1>
          <form method="get" action="/console/runs" class="filters">
            ${select(
              'f-status',
              'Status',
              'status',
              RUN_STATUS_LIST.map((v) => [v, v.replace(/_/g, ' ')]),
              f.status,
            )}
            ${select(
              'f-workflow',
              'Workflow',
              'workflow',
              workflows.map((w) => [w.id, w.name]),
              f.workflow,
            )}
            ${select(
              'f-trigger',
              'Trigger',
              'trigger',
              [
                ['api', 'api'],
                ['webhook', 'webhook'],
              ],
              f.trigger,
            )}
            <div><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${f.from}" /></div>
            <div><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${f.to}" /></div>
            <div><button type="submit">Filter</button></div>
          </form>
          <div class="table-wrap">
            <table class="runs stack">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Workflow</th>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Created</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody id="runs-body" hx-get="${self}" hx-trigger="sse:runs delay:300ms" hx-select="#runs-body" hx-swap="outerHTML">
                ${page.data.map(
                  (run) =>
                    html`<tr>
                      <td><a href="/console/runs/${run.id}">${run.id}</a></td>
                      <td>${run.workflow_name}</td>
                      <td>${statusBadge(run.status)}</td>
                      <td>${run.trigger}</td>
                      <td>${time(run.created_at)}</td>
                      <td>${duration(run.duration_ms)}</td>
                    </tr>`,
                )}
                ${
                  page.data.length
                    ? ''
                    : html`<tr>
                        <td colspan="6" class="muted">No runs.</td>
                      </tr>`
                }
              </tbody>
            </table>
          </div>
          ${next ? html`<p><a rel="next" href="${next}">Older runs →</a></p>` : ''}
        </section>`,
      }),
    );
  });
  return r;
}
