import MarkdownIt from 'markdown-it';
import type { ReviewView } from '@svc/domain';

// Raw HTML in instructions is shown as text (html: false); markdown-it also refuses
// javascript:/vbscript:/data: links, so instructions cannot inject script or markup.
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Review instructions (markdown) as safe HTML: the review page's and the console's one renderer. */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1b1f24; }
  main { max-width: 44rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
  h1 { margin-top: 0; font-size: 1.5rem; }
  .meta { color: #57606a; font-size: .9rem; }
  pre { background: #f6f8fa; padding: 1rem; overflow: auto; border-radius: 6px; }
  textarea { width: 100%; min-height: 5rem; box-sizing: border-box; font: inherit; }
  .actions { display: flex; gap: 1rem; margin-top: 1rem; }
  button { font: inherit; padding: .6rem 1.4rem; border-radius: 6px; border: 1px solid #0003; cursor: pointer; }
  .approve { background: #1f883d; color: #fff; }
  .reject { background: #cf222e; color: #fff; }
  .notice { padding: 1rem; border-radius: 6px; background: #ddf4ff; }
  .error { background: #ffebe9; }`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function reviewFormPage(args: {
  review: ReviewView & { run_id: string };
  workflowName: string;
  email: string;
  token: string;
  formToken: string;
}): string {
  const { review } = args;
  const data =
    review.data === null || review.data === undefined ? '' : `<h2>Data</h2><pre>${escapeHtml(JSON.stringify(review.data, null, 2))}</pre>`;
  return page(
    `Review: ${review.title}`,
    `<h1>${escapeHtml(review.title)}</h1>
<p class="meta">${escapeHtml(args.workflowName)} · run ${escapeHtml(review.run_id)} · expires ${escapeHtml(review.expires_at ?? '')}</p>
<section class="instructions">${renderMarkdown(review.instructions)}</section>
${data}
<form method="post" action="/reviews/${encodeURIComponent(review.id)}">
  <input type="hidden" name="token" value="${escapeHtml(args.token)}">
  <input type="hidden" name="form_token" value="${escapeHtml(args.formToken)}">
  <label for="comment">Comment (optional)</label>
  <textarea id="comment" name="comment" maxlength="4000"></textarea>
  <div class="actions">
    <button class="approve" type="submit" name="decision" value="approve">Approve</button>
    <button class="reject" type="submit" name="decision" value="reject">Reject</button>
  </div>
</form>
<p class="meta">You are deciding as ${escapeHtml(args.email)}.</p>`,
  );
}

export function messagePage(title: string, message: string, kind: 'notice' | 'error' = 'notice'): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="notice ${kind === 'error' ? 'error' : ''}">${escapeHtml(message)}</p>`);
}
