import { Router } from 'express';
import type { Request, Response } from 'express';
import { parse as parseCookies, serialize } from 'cookie';
import {
  AppError,
  createSession,
  mailSignInLink,
  MIN_PASSWORD_LENGTH,
  peekSignInLink,
  redeemSignInLink,
  revokeAllSessions,
  revokeSession,
  setMemberPassword,
  signIn,
} from '@svc/domain';
import { randomToken } from '@svc/signing';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import { layout } from '../layout';
import { clearSessionCookie, cookieOptions, PRE_CSRF_COOKIE, refusal, sendPage, setSessionCookie } from '../session';

/** The pre-session CSRF token: reused from its cookie, or a new one set now. */
function preCsrf(req: Request, res: Response, baseUrl: string): string {
  const existing = parseCookies(req.headers.cookie ?? '')[PRE_CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing)) return existing;
  const token = randomToken('', 24);
  res.append('Set-Cookie', serialize(PRE_CSRF_COOKIE, token, { ...cookieOptions(baseUrl), maxAge: 60 * 60 }));
  return token;
}

function signInPage(csrf: string, message?: { text: string; error?: boolean }) {
  return layout({
    title: 'Sign in',
    body: html`<section>
        <h1>Sign in</h1>
        ${message ? html`<p class="notice ${message.error ? 'error' : ''}" role="alert">${message.text}</p>` : ''}
        <form method="post" action="/console/sign-in">
          <input type="hidden" name="_csrf" value="${csrf}" />
          <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required />
          <label for="password">Password</label
          ><input id="password" name="password" type="password" autocomplete="current-password" required />
          <p><button type="submit">Sign in</button></p>
        </form>
      </section>
      <section>
        <h2>Or get a one-time link by mail</h2>
        <form method="post" action="/console/sign-in/link">
          <input type="hidden" name="_csrf" value="${csrf}" />
          <label for="link-email">Email for the link</label><input id="link-email" name="email" type="email" required />
          <p><button type="submit">Mail me a link</button></p>
        </form>
      </section>`,
  });
}

async function startSession(deps: ConsoleDeps, res: Response, memberId: string) {
  const id = await createSession(deps.prisma, memberId);
  setSessionCookie(res, deps.config.BASE_URL, id);
  res.redirect(303, '/console/runs');
}

export function authPages(deps: ConsoleDeps): Router {
  const r = Router();

  r.get('/sign-in', (req, res) => {
    if (req.consoleSession) return res.redirect(303, '/console/runs');
    sendPage(res, 200, signInPage(preCsrf(req, res, deps.config.BASE_URL)));
  });

  /** 429 with Retry-After: the same page for every email, so a refusal reveals nothing about membership. */
  function tryLater(req: Request, res: Response, retryAfterSeconds: number, text: (wait: string) => string) {
    res.setHeader('Retry-After', String(retryAfterSeconds));
    const minutes = Math.ceil(retryAfterSeconds / 60);
    const wait = `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
    sendPage(res, 429, signInPage(preCsrf(req, res, deps.config.BASE_URL), { text: text(wait), error: true }));
  }

  r.post('/sign-in', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const email = String(body.email ?? '').slice(0, 320);
    const password = String(body.password ?? '').slice(0, 1024);
    // The client address as the API's rate limits count it: through trusted proxies, IPv6 per /64.
    const outcome = await signIn(deps.prisma, { email, password, address: deps.addresses.bucket(req) });
    if (outcome.ok) return startSession(deps, res, outcome.memberId);
    if (outcome.reason === 'throttled') {
      return tryLater(req, res, outcome.retryAfterSeconds, (wait) => `Too many failed sign-ins. Try again ${wait}, or use a mailed link.`);
    }
    sendPage(res, 401, signInPage(preCsrf(req, res, deps.config.BASE_URL), { text: 'Wrong email or password.', error: true }));
  });

  r.post('/sign-in/link', async (req, res) => {
    const mailed = await mailSignInLink(
      { prisma: deps.prisma, mailer: deps.mailer },
      { email: String((req.body as Record<string, unknown>).email ?? '').slice(0, 320), baseUrl: deps.config.BASE_URL },
    );
    if (!mailed.sent)
      return tryLater(
        req,
        res,
        mailed.retryAfterSeconds,
        (wait) => `Too many sign-in links were asked for this address. Try again ${wait}.`,
      );
    sendPage(
      res,
      200,
      signInPage(preCsrf(req, res, deps.config.BASE_URL), { text: 'If that address belongs to a member, a sign-in link is on its way.' }),
    );
  });

  r.get('/link/:token', async (req, res) => {
    const link = await peekSignInLink(deps.prisma, String(req.params.token));
    if (!link) return refusal(res, 403, 'Link not valid', 'This link is not valid, was already used or has expired.');
    const csrf = preCsrf(req, res, deps.config.BASE_URL);
    const invite = link.purpose === 'invite';
    sendPage(
      res,
      200,
      layout({
        title: invite ? 'Choose a password' : 'Sign in',
        body: html`<section>
          <h1>${invite ? 'Choose a password' : 'Sign in'}</h1>
          <p>${link.email}</p>
          <form method="post" action="/console/link/${encodeURIComponent(String(req.params.token))}">
            <input type="hidden" name="_csrf" value="${csrf}" />
            ${invite ? html`<label for="password">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required />` : ''}
            <p><button type="submit">${invite ? 'Save and sign in' : 'Sign in'}</button></p>
          </form>
        </section>`,
      }),
    );
  });

  r.post('/link/:token', async (req, res) => {
    const token = String(req.params.token);
    const peek = await peekSignInLink(deps.prisma, token);
    const password = String((req.body as Record<string, unknown>).password ?? '');
    if (peek?.purpose === 'invite' && password.length < MIN_PASSWORD_LENGTH) {
      return refusal(res, 400, 'Password too short', `A password has at least ${MIN_PASSWORD_LENGTH} characters. Go back and try again.`);
    }
    const link = await redeemSignInLink(deps.prisma, token);
    if (!link) return refusal(res, 403, 'Link not valid', 'This link is not valid, was already used or has expired.');
    if (link.purpose === 'invite') {
      try {
        await setMemberPassword(deps.prisma, link.memberId, password);
      } catch (err) {
        if (err instanceof AppError) return refusal(res, 400, 'Password not accepted', err.message);
        throw err;
      }
    }
    await startSession(deps, res, link.memberId);
  });

  r.post('/sign-out', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    if (req.consoleSession && body.everywhere === '1') await revokeAllSessions(deps.prisma, req.consoleSession.memberId);
    else if (req.consoleSessionId) await revokeSession(deps.prisma, req.consoleSessionId);
    clearSessionCookie(res, deps.config.BASE_URL);
    res.redirect(303, '/console/sign-in');
  });

  return r;
}
