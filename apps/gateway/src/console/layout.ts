import { html } from './html';
import type { Safe } from './html';
import type { ConsoleSessionView } from '@svc/domain';

/** A signed-in session as pages see it: with the count of the workspace's pending reviews for the navigation. */
export type PageSession = ConsoleSessionView & { pendingReviews?: number; styleNonce?: string };

export interface LayoutArgs {
  title: string;
  session?: PageSession | null;
  body: Safe;
  /** Extra scripts of the page (files of this origin only). */
  scripts?: string[];
}

/** Every page: external CSS and script only (the CSP forbids inline), a skip link, one <main>. */
export function layout({ title, session, body, scripts = [] }: LayoutArgs): string {
  const pending = session?.pendingReviews ?? 0;
  const nav = session
    ? html`<nav aria-label="Main">
          <a href="/console/runs">Runs</a>
          <a href="/console/reviews"
            >Reviews${pending ? html` <span class="count" aria-label="${pending} pending">${pending}</span>` : ''}</a
          >
          <a href="/console/workflows">Workflows</a>
          <a href="/console/keys">API keys</a>
          <a href="/console/endpoints">Webhooks</a>
          <a href="/console/workspace">Workspace</a>
          <form method="post" action="/console/sign-out" class="inline">
            <input type="hidden" name="_csrf" value="${session.csrfToken}" />
            <button type="submit" class="link">Sign out</button>
          </form>
        </nav>
        <p class="who">${session.email} · ${session.role} · ${session.workspaceId}</p>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="color-scheme" content="light dark" />
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowScriptTags":false,"allowEval":false}' />
        <title>${title} · svc console</title>
        ${session?.styleNonce ? html`<meta name="style-nonce" content="${session.styleNonce}" />` : ''}
        <link rel="stylesheet" href="/console/static/console.css" />
        <script src="/console/static/htmx.min.js" defer></script>
        <script src="/console/static/sse.js" defer></script>
        <script src="/console/static/console.js" defer></script>
        ${scripts.map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header><a class="brand" href="/console">svc</a>${nav}</header>
        <main id="main">${body}</main>
      </body>
    </html>`.value;
}
