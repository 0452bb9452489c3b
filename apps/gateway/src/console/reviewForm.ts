import { decidedViaText } from '@svc/domain';
import type { ReviewView } from '@svc/domain';
import { renderMarkdown } from '../reviewPage/render';
import { html, Safe } from './html';
import { time } from './time';

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

/** Instructions as the mailed review page shows them: markdown through the same safe renderer. */
export function instructions(review: ReviewView): Safe | '' {
  return review.instructions ? html`<div class="instructions">${new Safe(renderMarkdown(review.instructions))}</div>` : '';
}

/** What a decided review records: who, through what, when and their comment. */
export function decision(review: ReviewView): Safe {
  return html`<p>
    Decided by <strong>${review.decided_by ?? '—'}</strong>${
      review.decided_via
        ? html` <span class="muted" data-decided-via="${review.decided_via.type}">(via ${decidedViaText(review.decided_via)})</span>`
        : ''
    }
    at ${time(review.decided_at)}${review.comment ? html`: “${review.comment}”` : ''}
  </p>`;
}
