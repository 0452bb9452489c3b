import type { NextFunction, Request, Response } from 'express';
import { parse as parseCookies, serialize } from 'cookie';
import { loadSession } from '@svc/domain';
import type { ConsoleSessionView } from '@svc/domain';
import type { Db } from '@svc/db';
import { safeEqual } from '@svc/signing';
import { layout } from './layout';
import type { PageSession } from './layout';
import { html } from './html';

export const SESSION_COOKIE = 'svc_console';

declare module 'express-serve-static-core' {
  interface Request {
    consoleSession?: PageSession;
    consoleSessionId?: string;
  }
}

export function cookieOptions(baseUrl: string) {
  // Secure whenever the console is served over https.
  return { httpOnly: true, sameSite: 'lax' as const, secure: baseUrl.startsWith('https:'), path: '/console' };
}

export function setSessionCookie(res: Response, baseUrl: string, id: string): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, id, { ...cookieOptions(baseUrl), maxAge: 12 * 60 * 60 }));
}

export function clearSessionCookie(res: Response, baseUrl: string): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', { ...cookieOptions(baseUrl), maxAge: 0 }));
}

export function sendPage(res: Response, status: number, page: string): void {
  res.status(status).type('html').send(page);
}

export function refusal(res: Response, status: number, title: string, message: string, session?: ConsoleSessionView): void {
  sendPage(
    res,
    status,
    layout({
      title,
      session,
      body: html`<h1>${title}</h1>
        <p class="notice error">${message}</p>`,
    }),
  );
}

/** Loads the member session from its cookie; never from an API key (a request carrying one is refused). */
export function loadConsoleSession(db: Db) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.headers.authorization) return refusal(res, 401, 'Not accepted', 'The console does not accept API keys; sign in instead.');
    const id = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (id) {
      const s = await loadSession(db, id);
      if (s) {
        req.consoleSession = s;
        req.consoleSessionId = id;
      }
    }
    next();
  };
}

export function requireSession(req: Request, res: Response, next: NextFunction): void {
  if (!req.consoleSession) return res.redirect(303, '/console/sign-in');
  next();
}

/**
 * CSRF for every state-changing request: the synchronizer token of the session (or, before
 * sign-in, of the pre-session cookie) in the form, plus same-origin Origin / Sec-Fetch-Site.
 */
export function checkCsrf(config: { BASE_URL: string }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    // Read per request: the base URL may be settled only once the server listens.
    const origin = new URL(config.BASE_URL).origin;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const expected = req.consoleSession?.csrfToken ?? parseCookies(req.headers.cookie ?? '')[PRE_CSRF_COOKIE];
    const given = typeof body._csrf === 'string' ? body._csrf : req.headers['x-csrf-token'];
    const site = req.headers['sec-fetch-site'];
    if (
      !expected ||
      typeof given !== 'string' ||
      !safeEqual(given, expected) ||
      (req.headers.origin !== undefined && req.headers.origin !== origin) ||
      (site !== undefined && site !== 'same-origin' && site !== 'none')
    ) {
      return refusal(
        res,
        403,
        'Not accepted',
        'This form was not sent from this console (CSRF check); nothing was changed.',
        req.consoleSession,
      );
    }
    next();
  };
}

/** Sign-in forms are posted before any session exists: a random token in a cookie, repeated in the form. */
export const PRE_CSRF_COOKIE = 'svc_console_pre';
