import { Router } from 'express';
import { listReviews } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import { layout } from '../layout';
import { sendPage } from '../session';
import { reviewForm } from './runs';

/** The workspace's pending reviews; decisions go through the run page's route (RunControl, first wins). */
export function reviewPages(deps: ConsoleDeps): Router {
  const r = Router();
  r.get('/reviews', async (req, res) => {
    const s = req.consoleSession!;
    const pending = await listReviews(deps.prisma, { workspaceId: s.workspaceId, pendingOnly: true });
    sendPage(
      res,
      200,
      layout({
        title: 'Reviews',
        session: s,
        body: html`<h1>Reviews waiting</h1>
          ${pending.length ? '' : html`<section><p class="muted">Nothing waits for a decision.</p></section>`}
          ${pending.map(
            (rv) =>
              html`<section class="review">
                <h2>${rv.title}</h2>
                <p>
                  Run <a href="/console/runs/${rv.run_id}">${rv.run_id}</a> · step ${rv.step_key} · requested ${rv.requested_at} · expires
                  ${rv.expires_at}
                </p>
                ${rv.instructions ? html`<pre>${rv.instructions}</pre>` : ''}
                ${rv.data !== null && rv.data !== undefined ? html`<pre>${JSON.stringify(rv.data, null, 2)}</pre>` : ''}
                ${reviewForm(rv.run_id, rv, s.csrfToken)}
              </section>`,
          )}`,
      }),
    );
  });
  return r;
}
