import { Router } from 'express';
import type { Request, Response } from 'express';
import { AppError, cancelRun, decideReview, getRun } from '@svc/domain';
import type { ConsoleSessionView, RunView, WorkflowDefinition } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { stepGraph } from '../graph';
import { html } from '../html';
import type { Safe } from '../html';
import { layout } from '../layout';
import { decision, instructions, reviewForm } from '../reviewForm';
import { refusal, sendPage } from '../session';
import { CANCELLABLE_RUN_STATUSES } from '../statuses';
import { duration, time } from '../time';
import { runTrace } from '../trace';
import type { StepAttempt } from '../trace';
import { runEvents } from './runEvents';
import { statusBadge } from './runs';

const json = (v: unknown) => html`<pre>${JSON.stringify(v, null, 2)}</pre>`;

interface RunPage {
  run: RunView;
  attempts: StepAttempt[];
  definition: WorkflowDefinition | null;
  temporalWorkflowId: string;
  events: Safe;
}

function stepsTable(run: RunView): Safe {
  return html`<div class="table-wrap">
    <table class="steps">
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
        ${(run.steps ?? []).map(
          (s) =>
            html`<tr class="step" data-step="${s.key}">
              <td>
                <strong>${s.name}</strong> <span class="muted">${s.key} · ${s.type}</span>
                ${
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
              <td>${statusBadge(s.status)}</td>
              <td>${s.attempts}</td>
              <td>${duration(s.duration_ms)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The part of the run page that live updates replace: everything but the review's form. */
function runLive(p: RunPage, deps: ConsoleDeps, s: ConsoleSessionView): Safe {
  const { run } = p;
  const statuses = Object.fromEntries((run.steps ?? []).map((st) => [st.key, st.status]));
  return html`<div id="run-live" hx-get="/console/runs/${run.id}/live" hx-trigger="sse:run delay:200ms" hx-swap="outerHTML">
    <section>
      <h1 class="run-title">Run <code>${run.id}</code></h1>
      <p>
        Status: <span id="run-status">${statusBadge(run.status)}</span> · workflow
        <a href="/console/workflows/${run.workflow_id}">${run.workflow_id}</a> v${run.workflow_version} · trigger ${run.trigger}
      </p>
      <p class="muted">
        created ${time(run.created_at)} · started ${time(run.started_at)} · finished
        ${time(run.finished_at)}${run.duration_ms !== null ? html` · ${duration(run.duration_ms)}` : ''}
      </p>
      ${
        CANCELLABLE_RUN_STATUSES.has(run.status)
          ? html`<form method="post" action="/console/runs/${run.id}/cancel">
              <input type="hidden" name="_csrf" value="${s.csrfToken}" /><button class="danger" type="submit">Cancel run</button>
            </form>`
          : ''
      }
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
    <section class="graph-and-trace">
      <div>
        <h2>Graph</h2>
        <div class="graph-wrap">${p.definition ? stepGraph(p.definition.steps, statuses) : ''}</div>
      </div>
      <div>
        <h2>Trace</h2>
        ${runTrace(run, { temporalUiUrl: deps.config.TEMPORAL_UI_URL, namespace: deps.config.TEMPORAL_NAMESPACE, temporalWorkflowId: p.temporalWorkflowId, attempts: p.attempts })}
      </div>
    </section>
    <section>${stepsTable(run)}</section>
    ${p.events}
  </div>`;
}

/** The review block, replaced only when the review itself changes, so a comment being typed stays. */
function runReview(run: RunView, s: ConsoleSessionView): Safe {
  const review = run.review;
  return html`<div id="run-review" hx-get="/console/runs/${run.id}/review" hx-trigger="sse:review delay:200ms" hx-swap="outerHTML">
    ${
      review
        ? html`<section>
            <h2>Review: ${review.title}</h2>
            <p>
              Status: ${statusBadge(review.status)} · assignees ${review.assignees.join(', ') || '—'} · expires ${time(review.expires_at)}
            </p>
            ${instructions(review)} ${review.data !== null && review.data !== undefined ? json(review.data) : ''}
            ${review.status === 'pending' ? reviewForm(run.id, review, s.csrfToken) : decision(review)}
          </section>`
        : ''
    }
  </div>`;
}

export function runPages(deps: ConsoleDeps): Router {
  const r = Router();

  async function load(req: Request): Promise<RunPage> {
    const s = req.consoleSession!;
    const run = await getRun(deps.prisma, { workspaceId: s.workspaceId, runId: String(req.params.id) });
    const [version, row, events, attempts] = await Promise.all([
      deps.prisma.workflowVersion.findUnique({
        where: { workflowId_version: { workflowId: run.workflow_id, version: run.workflow_version } },
      }),
      deps.prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { temporalWorkflowId: true } }),
      runEvents(deps, run.id, s.workspaceId),
      deps.prisma.runStepAttempt.findMany({ where: { runId: run.id }, orderBy: [{ key: 'asc' }, { number: 'asc' }] }),
    ]);
    return {
      run,
      attempts,
      definition: (version?.definition as unknown as WorkflowDefinition) ?? null,
      temporalWorkflowId: row.temporalWorkflowId,
      events,
    };
  }

  r.get('/runs/:id', async (req, res) => {
    const s = req.consoleSession!;
    const p = await load(req);
    const shown = new URLSearchParams({ run: p.run.status, review: p.run.review?.status ?? 'none' });
    sendPage(
      res,
      200,
      layout({
        title: `Run ${p.run.id}`,
        session: s,
        body: html`<div hx-ext="sse" sse-connect="/console/live/runs/${p.run.id}?${shown}">
          ${runLive(p, deps, s)} ${runReview(p.run, s)}
        </div>`,
      }),
    );
  });

  r.get('/runs/:id/live', async (req, res) => {
    sendPage(res, 200, runLive(await load(req), deps, req.consoleSession!).value);
  });

  r.get('/runs/:id/review', async (req, res) => {
    const s = req.consoleSession!;
    const run = await getRun(deps.prisma, { workspaceId: s.workspaceId, runId: String(req.params.id) });
    sendPage(res, 200, runReview(run, s).value);
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
