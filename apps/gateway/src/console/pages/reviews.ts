import { Router } from 'express';
import { listReviews } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import { layout } from '../layout';
import { instructions, reviewForm } from '../reviewForm';
import { sendPage } from '../session';
import { time } from '../time';

/** The workspace's pending reviews, all or those assigned to the viewer; decisions go through the run page's route. */
export function reviewPages(deps: ConsoleDeps): Router {
  const r = Router();
  r.get('/reviews', async (req, res) => {
    const s = req.consoleSession!;
    const mine = req.query.assigned === 'me';
    const pending = (await listReviews(deps.prisma, { workspaceId: s.workspaceId, pendingOnly: true })).filter(
      (rv) => !mine || rv.assignees.some((a) => a.toLowerCase() === s.email.toLowerCase()),
    );
    sendPage(
      res,
      200,
      layout({
        title: 'Reviews',
        session: s,
        body: html`<h1>Reviews waiting</h1>
          <nav class="tabs" aria-label="Which reviews">
            <a href="/console/reviews" ${mine ? '' : html`aria-current="page"`}>All pending</a>
            <a href="/console/reviews?assigned=me" ${mine ? html`aria-current="page"` : ''}>Assigned to me</a>
          </nav>
          ${pending.length ? '' : html`<section><p class="muted">Nothing waits for ${mine ? 'you' : 'a decision'}.</p></section>`}
          ${pending.map(
            (rv) =>
              html`<section class="review">
                <h2>${rv.title}</h2>
                <p>
                  Run <a href="/console/runs/${rv.run_id}">${rv.run_id}</a> · step ${rv.step_key} · requested ${time(rv.requested_at)} ·
                  expires ${time(rv.expires_at)}${rv.assignees.length ? ` · assignees ${rv.assignees.join(', ')}` : ''}
                </p>
                ${instructions(rv)} ${rv.data !== null && rv.data !== undefined ? html`<pre>${JSON.stringify(rv.data, null, 2)}</pre>` : ''}
                ${reviewForm(rv.run_id, rv, s.csrfToken)}
              </section>`,
          )}`,
      }),
    );
  });
  return r;
}
