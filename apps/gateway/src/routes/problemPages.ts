import { Router } from 'express';
import type { Response } from 'express';
import MarkdownIt from 'markdown-it';
import { exampleProblem } from '@svc/contract';
import { PROBLEM_PAGES_PATH } from '@svc/domain';
import type { ProblemType } from '@svc/domain';
import { escapeHtml } from '../reviewPage/render';
import { pageHeaders } from './docs';

/**
 * The pages problem `type` URIs point at: `GET /docs/problems/<code with - for _>` explains one
 * code (when it happens, what to do, an example), `GET /docs/problems` lists them all. Static
 * HTML rendered once, no script, no key; a code's snake_case spelling redirects to its page.
 */

// The explanations are the service's own text; html: false keeps them text all the same.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1b1f24; }
  main { max-width: 48rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
  h1 { margin-top: 0; font-size: 1.5rem; }
  .meta { color: #57606a; }
  code, pre { background: #f6f8fa; border-radius: 4px; }
  pre { padding: 1rem; overflow: auto; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #d0d7de; }`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — svc API</title><link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png"><style>${STYLE}</style></head>
<body><main>${body}
<p class="meta"><a href="${PROBLEM_PAGES_PATH}">All error codes</a> · <a href="/docs">API reference</a></p></main></body></html>`;
}

function problemPage(p: ProblemType): string {
  return page(
    p.title,
    `<h1>${escapeHtml(p.title)}</h1>
<p class="meta">HTTP ${p.status} · code <code>${escapeHtml(p.code)}</code></p>
<h2>When</h2>${markdown.render(p.when)}
<h2>What to do</h2>${markdown.render(p.then)}
<h2>The answer</h2>
<p>An RFC 9457 problem (<code>application/problem+json</code>) whose <code>type</code> is this page:</p>
<pre>${escapeHtml(JSON.stringify(exampleProblem(p), null, 2))}</pre>`,
  );
}

function indexPage(problems: readonly ProblemType[]): string {
  const rows = problems
    .map(
      (p) =>
        `<tr><td>${p.status}</td><td><a href="${PROBLEM_PAGES_PATH}/${p.slug}"><code>${escapeHtml(p.code)}</code></a></td><td>${escapeHtml(p.title)}</td></tr>`,
    )
    .join('\n');
  return page(
    'Error codes',
    `<h1>Error codes</h1>
<p>Every error of the API is an RFC 9457 problem with a stable <code>code</code>; its <code>type</code> links to the page explaining it.</p>
<table><thead><tr><th>Status</th><th>Code</th><th>Title</th></tr></thead><tbody>
${rows}
</tbody></table>`,
  );
}

export function problemPageRoutes(problems: readonly ProblemType[]): Router {
  const r = Router();
  const pages = new Map(problems.map((p) => [p.slug, problemPage(p)]));
  const slugOfCode = new Map(problems.map((p) => [p.code as string, p.slug]));
  const index = indexPage(problems);
  const send = (res: Response, html: string) => {
    pageHeaders(res);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.status(200).type('html').send(html);
  };
  r.get(PROBLEM_PAGES_PATH, (_req, res) => send(res, index));
  r.get(`${PROBLEM_PAGES_PATH}/:slug`, (req, res, next) => {
    const slug = String(req.params.slug);
    const html = pages.get(slug);
    if (html) return send(res, html);
    const canonical = slugOfCode.get(slug);
    if (canonical) return res.redirect(301, `${PROBLEM_PAGES_PATH}/${canonical}`);
    next();
  });
  return r;
}
