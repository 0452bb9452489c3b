import { Router } from 'express';
import type { Request, Response } from 'express';
import { parseDuration } from '@svc/config';
import { AppError, createApiKey, listApiKeys, revokeApiKey, SCOPES } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { layout } from '../layout';
import { isAdmin } from '../roles';
import { sendPage } from '../session';
import { time } from '../time';

/** API keys (admins manage, members read): the clear key is shown once, on the answer to its creation. */
export function keyPages(deps: ConsoleDeps): Router {
  const r = Router();

  async function page(req: Request, res: Response, extra: Safe | '' = '', status = 200) {
    const s = req.consoleSession!;
    const keys = await listApiKeys(deps.prisma, s.workspaceId);
    const admin = isAdmin(s);
    sendPage(
      res,
      status,
      layout({
        title: 'API keys',
        session: s,
        body: html`<h1>API keys</h1>
          ${extra}
          <section>
            <div class="table-wrap">
              <table class="keys stack">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Created</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Last used</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  ${keys.map(
                    (k) =>
                      html`<tr class="key" data-key="${k.id}">
                        <td>${k.name}</td>
                        <td><code>svc_…${k.last4}</code></td>
                        <td>${k.scopes.join(', ')}</td>
                        <td>${time(k.created_at)}</td>
                        <td>${time(k.expires_at, 'never')}</td>
                        <td>${time(k.last_used_at, 'never')}</td>
                        <td>
                          ${k.revoked_at ? html`revoked ${k.revoked_at}` : admin ? html`<form method="post" action="/console/keys/${k.id}/revoke"><input type="hidden" name="_csrf" value="${s.csrfToken}" /><button class="danger" type="submit" aria-label="Revoke ${k.name}">Revoke</button></form>` : 'active'}
                        </td>
                      </tr>`,
                  )}
                  ${
                    keys.length
                      ? ''
                      : html`<tr>
                          <td colspan="7" class="muted">No keys.</td>
                        </tr>`
                  }
                </tbody>
              </table>
            </div>
          </section>
          ${
            admin
              ? html`<section>
                  <h2>Create a key</h2>
                  <form method="post" action="/console/keys">
                    <input type="hidden" name="_csrf" value="${s.csrfToken}" />
                    <label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" />
                    <fieldset>
                      <legend>Scopes</legend>
                      ${SCOPES.map((sc) => html`<label><input type="checkbox" name="scopes" value="${sc}" /> ${sc}</label>`)}
                    </fieldset>
                    <label for="key-expiry">Expires in (e.g. 30d, 12h; empty: never)</label
                    ><input id="key-expiry" name="expires_in" maxlength="20" />
                    <p><button type="submit">Create key</button></p>
                  </form>
                </section>`
              : html`<p class="muted">Only workspace admins create and revoke keys.</p>`
          }`,
      }),
    );
  }

  r.get('/keys', (req, res) => page(req, res));

  r.post('/keys', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    const scopes = ([] as unknown[]).concat(body.scopes ?? []).map(String);
    const expiresIn = String(body.expires_in ?? '').trim();
    try {
      const key = await createApiKey(deps.prisma, {
        workspaceId: s.workspaceId,
        name:
          String(body.name ?? '')
            .trim()
            .slice(0, 100) || 'key',
        scopes,
        expiresAt: expiresIn ? new Date(Date.now() + parseDuration(expiresIn)) : undefined,
      });
      await page(
        req,
        res,
        html`<section>
          <p class="notice" role="status">Key created. Copy it now: it is never shown again.</p>
          <p class="secret" id="new-key">${key.key}</p>
        </section>`,
        201,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await page(req, res, html`<p class="notice error" role="alert">${err.message}</p>`, 400);
    }
  });

  r.post('/keys/:id/revoke', async (req, res) => {
    const s = req.consoleSession!;
    const key = await deps.prisma.apiKey.findFirst({ where: { id: String(req.params.id), workspaceId: s.workspaceId } });
    if (!key) throw new AppError('not_found', 'API key not found');
    await revokeApiKey(deps.prisma, key.id);
    res.redirect(303, '/console/keys');
  });
  return r;
}
