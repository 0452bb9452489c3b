import { Router } from 'express';
import type { Request, Response } from 'express';
import { AppError, cancelRun, decidedViaText, decideReview, getRun, listWorkspaceRuns } from '@svc/domain';
import type { ConsoleSessionView, ReviewView, RunView, StepView } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { layout } from '../layout';
import { refusal, sendPage } from '../session';

const STATUSES = ['queued', 'running', 'waiting_for_review', 'succeeded', 'failed', 'cancelled', 'timed_out'];
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'timed_out']);
const ID = /^[a-z]+_[0-9a-z]{1,64}$/;

const status = (s: string) => html`<span class="status status-${s}">${s.replace(/_/g, ' ')}</span>`;
const json = (v: unknown) => html`<pre>${JSON.stringify(v, null, 2)}</pre>`;

function q(req: Request, name: string): string {
  const v = req.query[name];
  return typeof v === 'string' ? v.trim().slice(0, 100) : '';
}

function dateParam(v: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const d = new Date(`${v}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function reviewForm(runId: string, review: ReviewView, csrf: string): Safe {
  return html`<form method="post" action="/console/runs/${runId}/review">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="comment-${review.id}">Comment (optional)</label>
    <textarea id="comment-${review.id}" name="comment" maxlength="4000"></textarea>
    <p>
      <button class="ok" type="submit" name="decision" value="approve">Approve</button>
      <button class="danger" type="submit" name="decision" value="reject">Reject</button>
    </p>
  </form>`;
}

function timeline(steps: StepView[]): Safe {
  const longest = Math.max(1, ...steps.map((s) => s.duration_ms ?? 0));
  return html`<table>
    <caption class="muted">
      Steps
    </caption>
    <thead>
      <tr>
        <th scope="col">Step</th>
        <th scope="col">Status</th>
        <th scope="col">Attempts</th>
        <th scope="col">Duration</th>
      </tr>
    </thead>
    <tbody>
      ${steps.map(
        (s) =>
          html`<tr class="step" data-step="${s.key}">
            <td>
              <strong>${s.name}</strong> <span class="muted">${s.key} · ${s.type}</span> ${
                s.output !== null && s.output !== undefined
                  ? html`<details>
                      <summary>Output</summary>
                      ${json(s.output)}
                    </details>`
                  : ''
              }
              ${
                s.error
                  ? html`<details open>
                      <summary>Error</summary>
                      ${json(s.error)}
                    </details>`
                  : ''
              }
            </td>
            <td>${status(s.status)}</td>
            <td>${s.attempts}</td>
            <td>
              ${s.duration_ms === null ? '—' : html`<meter min="0" max="${longest}" value="${s.duration_ms}" aria-label="duration">${s.duration_ms} ms</meter> ${s.duration_ms} ms`}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function runBody(run: RunView & { events: Safe }, session: ConsoleSessionView): Safe {
  const review = run.review;
  const live = !TERMINAL.has(run.status);
  return html`<div
    id="run-live"
    ${live ? html`hx-get="/console/runs/${run.id}" hx-trigger="every 2s" hx-select="#run-live" hx-swap="outerHTML"` : ''}
  >
    <section>
      <h1>Run <code>${run.id}</code></h1>
      <p>
        Status: ${status(run.status)} · workflow
        <a href="/console/workflows/${run.workflow_id}">${run.workflow_id}</a> v${run.workflow_version} · trigger ${run.trigger}
      </p>
      <p class="muted">
        created ${run.created_at} · started ${run.started_at ?? '—'} · finished
        ${run.finished_at ?? '—'}${run.duration_ms !== null ? html` · ${run.duration_ms} ms` : ''}
      </p>
      ${live ? html`<form method="post" action="/console/runs/${run.id}/cancel"><input type="hidden" name="_csrf" value="${session.csrfToken}" /><button class="danger" type="submit">Cancel run</button></form>` : ''}
      <details>
        <summary>Input</summary>
        ${json(run.input)}
      </details>
      ${
        run.output !== null && run.output !== undefined
          ? html`<h2>Output</h2>
              ${json(run.output)}`
          : ''
      }
      ${
        run.error
          ? html`<h2>Error</h2>
              ${json(run.error)}`
          : ''
      }
    </section>
    <section>${timeline(run.steps ?? [])}</section>
    ${
      review
        ? html`<section>
            <h2>Review: ${review.title}</h2>
            <p>Status: ${status(review.status)} · assignees ${review.assignees.join(', ') || '—'} · expires ${review.expires_at}</p>
            ${review.instructions ? html`<pre>${review.instructions}</pre>` : ''}
            ${review.data !== null && review.data !== undefined ? json(review.data) : ''}
            ${review.status === 'pending' ? reviewForm(run.id, review, session.csrfToken) : html`<p>Decided by <strong>${review.decided_by ?? '—'}</strong>${review.decided_via ? html` <span class="muted" data-decided-via="${review.decided_via.type}">(via ${decidedViaText(review.decided_via)})</span>` : ''} at ${review.decided_at}${review.comment ? html`: “${review.comment}”` : ''}</p>`}
          </section>`
        : ''
    }
    ${run.events}
  </div>`;
}

async function runEvents(deps: ConsoleDeps, runId: string, workspaceId: string): Promise<Safe> {
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
                        <a href="/console/endpoints/${d.endpointId}">${d.endpoint.url}</a> ${status(d.status)} (${d.attemptCount}
                        attempts${d.lastResponseStatus ? `, last HTTP ${d.lastResponseStatus}` : ''})
                      </div>`,
                  )}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

export function runPages(deps: ConsoleDeps): Router {
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
        status: STATUSES.includes(f.status) ? f.status : undefined,
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
    sendPage(
      res,
      200,
      layout({
        title: 'Runs',
        session: s,
        body: html`<section>
          <h1>Runs</h1>
          <form method="get" action="/console/runs" class="filters">
            <div>
              <label for="f-status">Status</label
              ><select id="f-status" name="status">
                <option value="">any</option>
                ${STATUSES.map((v) => html`<option ${v === f.status ? 'selected' : ''}>${v}</option>`)}
              </select>
            </div>
            <div>
              <label for="f-workflow">Workflow</label
              ><select id="f-workflow" name="workflow">
                <option value="">any</option>
                ${workflows.map((w) => html`<option value="${w.id}" ${w.id === f.workflow ? 'selected' : ''}>${w.name}</option>`)}
              </select>
            </div>
            <div>
              <label for="f-trigger">Trigger</label
              ><select id="f-trigger" name="trigger">
                <option value="">any</option>
                ${['api', 'webhook'].map((v) => html`<option ${v === f.trigger ? 'selected' : ''}>${v}</option>`)}
              </select>
            </div>
            <div><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${f.from}" /></div>
            <div><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${f.to}" /></div>
            <div><button type="submit">Filter</button></div>
          </form>
          <table>
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
            <tbody id="runs-body" hx-get="${self}" hx-trigger="every 3s" hx-select="#runs-body" hx-swap="outerHTML">
              ${page.data.map(
                (run) =>
                  html`<tr>
                    <td><a href="/console/runs/${run.id}">${run.id}</a></td>
                    <td>${run.workflow_name}</td>
                    <td>${status(run.status)}</td>
                    <td>${run.trigger}</td>
                    <td>${run.created_at}</td>
                    <td>${run.duration_ms === null ? '—' : `${run.duration_ms} ms`}</td>
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
          ${next ? html`<p><a rel="next" href="${next}">Older runs →</a></p>` : ''}
        </section>`,
      }),
    );
  });

  r.get('/runs/:id', async (req, res) => {
    const s = req.consoleSession!;
    const run = await getRun(deps.prisma, { workspaceId: s.workspaceId, runId: String(req.params.id) });
    const events = await runEvents(deps, run.id, s.workspaceId);
    sendPage(res, 200, layout({ title: `Run ${run.id}`, session: s, body: runBody({ ...run, events }, s) }));
  });

  r.post('/runs/:id/cancel', async (req, res) => {
    const s = req.consoleSession!;
    await cancelRun({ prisma: deps.prisma, control: deps.control }, { workspaceId: s.workspaceId, runId: String(req.params.id) });
    res.redirect(303, `/console/runs/${encodeURIComponent(String(req.params.id))}`);
  });

  r.post('/runs/:id/review', async (req, res: Response) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    if (body.decision !== 'approve' && body.decision !== 'reject')
      return refusal(res, 400, 'Choose a decision', 'Use Approve or Reject.', s);
    const comment = typeof body.comment === 'string' && body.comment.trim() ? body.comment.trim().slice(0, 4000) : null;
    try {
      await decideReview(
        { prisma: deps.prisma, control: deps.control },
        {
          workspaceId: s.workspaceId,
          runId: String(req.params.id),
          decision: body.decision === 'approve' ? 'approved' : 'rejected',
          comment,
          decidedBy: s.email,
          decidedVia: { type: 'console', id: s.memberId },
        },
      );
    } catch (err) {
      if (err instanceof AppError && (err.code === 'review_already_decided' || err.code === 'no_pending_review')) {
        return refusal(
          res,
          409,
          'Already decided',
          'Someone decided this review first (or the run ended); your choice was not recorded.',
          s,
        );
      }
      throw err;
    }
    res.redirect(303, `/console/runs/${encodeURIComponent(String(req.params.id))}`);
  });

  return r;
}
