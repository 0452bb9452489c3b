import path from 'node:path';
import express, { Router } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@svc/domain';
import { randomToken } from '@svc/signing';
import type { ConsoleDeps } from './deps';
import { authPages } from './pages/auth';
import { endpointPages } from './pages/endpoints';
import { keyPages } from './pages/keys';
import { reviewPages } from './pages/reviews';
import { workflowPages } from './pages/workflows';
import { workspacePages } from './pages/workspace';
import { livePages } from './pages/live';
import { memberPages } from './pages/members';
import { runPages } from './pages/run';
import { runListPages } from './pages/runs';
import { workflowEditPages } from './pages/workflowEdit';
import { workflowAdminPages } from './pages/workflowAdmin';
import { rolesGate } from './roles';
import { checkCsrf, loadConsoleSession, refusal, requireSession } from './session';

/**
 * No inline script anywhere, and no inline style but the editor's: CodeMirror writes its own
 * stylesheet, which carries this response's nonce (EditorView.cspNonce, read from the page).
 */
function csp(styleNonce: string): string {
  return `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${styleNonce}'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

function secureHeaders(_req: Request, res: Response, next: NextFunction): void {
  const nonce = randomToken('', 16);
  res.locals.styleNonce = nonce;
  res.setHeader('Content-Security-Policy', csp(nonce));
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
}

// From dist/console or src/console alike: the stylesheet stays in the sources (tsc copies no CSS).
const STATIC_DIR = path.resolve(__dirname, '../../src/console/static');
const HTMX_DIR = path.dirname(require.resolve('htmx.org/dist/htmx.min.js'));
const SSE_FILE = require.resolve('htmx-ext-sse/dist/sse.min.js');
// The editor's bundle, built by `npm run build` (scripts/bundle-console.js) into dist.
const CLIENT_DIR = path.resolve(__dirname, '../../dist/client');

/** Each signed-in page's count of pending reviews, for the navigation. */
async function countPendingReviews(deps: ConsoleDeps, req: Request): Promise<void> {
  const s = req.consoleSession;
  if (!s || req.method !== 'GET') return;
  s.pendingReviews = await deps.prisma.review.count({ where: { status: 'pending', run: { workspaceId: s.workspaceId } } });
}

/** The web console at /console: member sessions only, never API keys. */
export function consoleRouter(deps: ConsoleDeps): Router {
  const r = Router();
  r.use(secureHeaders);
  r.use('/static', express.static(STATIC_DIR, { index: false, maxAge: '1h' }));
  r.get('/static/htmx.min.js', (_req, res) => res.sendFile(path.join(HTMX_DIR, 'htmx.min.js'), { maxAge: '1h' }));
  r.get('/static/sse.js', (_req, res) => res.sendFile(SSE_FILE, { maxAge: '1h' }));
  r.use('/static/client', express.static(CLIENT_DIR, { index: false, maxAge: '1h' }));
  r.use(loadConsoleSession(deps.prisma));
  r.use((req, res, next) => {
    if (req.consoleSession) req.consoleSession.styleNonce = String(res.locals.styleNonce);
    next();
  });
  r.use(express.urlencoded({ extended: false, limit: '256kb' }));
  r.use(checkCsrf(deps.config));
  r.get('/', (req, res) => res.redirect(303, req.consoleSession ? '/console/runs' : '/console/sign-in'));
  r.use(authPages(deps));
  r.use(requireSession);
  // Every write below is for admins unless roles.ts lets members make it.
  r.use(rolesGate());
  r.use(livePages(deps));
  r.use((req, _res, next) => {
    countPendingReviews(deps, req).then(() => next(), next);
  });
  r.use(runListPages(deps));
  r.use(runPages(deps));
  r.use(reviewPages(deps));
  // Before the workflow pages: `/workflows/new` and `/workflows/validate` are not workflow ids.
  r.use(workflowEditPages(deps));
  r.use(workflowPages(deps));
  r.use(workflowAdminPages(deps));
  r.use(keyPages(deps));
  r.use(endpointPages(deps));
  r.use(workspacePages(deps));
  r.use(memberPages(deps));
  r.use((req, res) => refusal(res, 404, 'Not found', 'There is no such page.', req.consoleSession));
  // Domain errors become pages, not problems: a foreign or missing id reads as "not found".
  r.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof AppError)) return next(err);
    const status = err.status;
    const details = err.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
    refusal(
      res,
      status,
      status === 404 ? 'Not found' : status >= 500 ? 'Unavailable' : 'Not done',
      details ? `${err.message} (${details})` : err.message,
      req.consoleSession,
    );
  });
  return r;
}
