import { Router } from 'express';
import {
  AppError,
  deleteSecret,
  getWorkspace,
  listMembers,
  listSecrets,
  RATE_WINDOW_SECONDS,
  setSecret,
  workspaceLimits,
} from '@svc/domain';
import { secretBoxOf } from '../deps';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import { layout } from '../layout';
import { time } from '../time';
import { membersSection } from './members';
import { isAdmin } from '../roles';
import { refusal, sendPage } from '../session';

/** Plan, limits and current use; members; secret names (values can be set or deleted, never read back). */
export function workspacePages(deps: ConsoleDeps): Router {
  const r = Router();

  r.get('/workspace', async (req, res) => {
    const s = req.consoleSession!;
    const ws = await getWorkspace(deps.prisma, s.workspaceId);
    const row = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: s.workspaceId } });
    const limits = workspaceLimits(row);
    // The rate limiter's shared counter for the workspace (`ws:<id>`) in the current window.
    const counter = await deps.prisma.$queryRaw<{ points: number }[]>`
      SELECT points FROM rate_limits WHERE key = ${`ws:${s.workspaceId}`} AND expire > ${Date.now()}`;
    const [running, queued] = await Promise.all([
      deps.prisma.run.count({ where: { workspaceId: s.workspaceId, status: 'running' } }),
      deps.prisma.run.count({ where: { workspaceId: s.workspaceId, status: 'queued' } }),
    ]);
    const members = await listMembers(deps.prisma, s.workspaceId);
    const secrets = await listSecrets(deps.prisma, s.workspaceId);
    const admin = isAdmin(s);
    sendPage(
      res,
      200,
      layout({
        title: 'Workspace',
        session: s,
        body: html`<h1>Workspace ${ws.name}</h1>
          <section>
            <h2>Plan and use</h2>
            <table>
              <tbody>
                <tr>
                  <th scope="row">Plan</th>
                  <td>${limits.plan}</td>
                </tr>
                <tr>
                  <th scope="row">Requests this minute (workspace)</th>
                  <td id="use-requests">
                    ${counter[0]?.points ?? 0} of ${limits.workspacePerMin} per ${RATE_WINDOW_SECONDS} s (${limits.keyPerMin} per key)
                  </td>
                </tr>
                <tr>
                  <th scope="row">Running runs</th>
                  <td id="use-running">${running} of ${limits.concurrency} at once</td>
                </tr>
                <tr>
                  <th scope="row">Queued runs</th>
                  <td id="use-queued">${queued}</td>
                </tr>
              </tbody>
            </table>
          </section>
          <section>
            <h2>Your sessions</h2>
            <form method="post" action="/console/sign-out">
              <input type="hidden" name="_csrf" value="${s.csrfToken}" />
              <input type="hidden" name="everywhere" value="1" />
              <button type="submit" class="danger">Sign out everywhere</button>
            </form>
          </section>
          ${membersSection(members, s)}
          <section>
            <h2>Secrets</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Updated</th>
                  ${admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${secrets.map(
                  (x) =>
                    html`<tr class="secret-row" data-secret="${x.name}">
                      <td><code>${x.name}</code></td>
                      <td>${time(x.updated_at)}</td>
                      ${
                        admin
                          ? html`<td>
                              <form method="post" action="/console/workspace/secrets/${x.name}/delete">
                                <input type="hidden" name="_csrf" value="${s.csrfToken}" />
                                <button type="submit" class="danger" aria-label="Delete secret ${x.name}">Delete</button>
                              </form>
                            </td>`
                          : ''
                      }
                    </tr>`,
                )}
                ${
                  secrets.length
                    ? ''
                    : html`<tr>
                        <td colspan="3" class="muted">No secrets.</td>
                      </tr>`
                }
              </tbody>
            </table>
            ${
              admin
                ? html`<form method="post" action="/console/workspace/secrets">
                    <input type="hidden" name="_csrf" value="${s.csrfToken}" />
                    <label for="secret-name">Name</label
                    ><input id="secret-name" name="name" required pattern="[A-Z][A-Z0-9_]{0,63}" autocomplete="off" />
                    <label for="secret-value">Value (set or replace; never shown back)</label
                    ><input id="secret-value" name="value" type="password" required autocomplete="off" />
                    <p><button type="submit">Save secret</button></p>
                  </form>`
                : ''
            }
          </section>`,
      }),
    );
  });

  r.post('/workspace/secrets', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    try {
      await setSecret(deps.prisma, secretBoxOf(deps), {
        workspaceId: s.workspaceId,
        name: String(body.name ?? ''),
        value: String(body.value ?? ''),
      });
    } catch (err) {
      // Over the secrets cap: 422 like the API's limit_exceeded; any other refusal is a bad form.
      if (err instanceof AppError && err.status < 500)
        return refusal(res, err.code === 'limit_exceeded' ? 422 : 400, 'Not saved', err.message, s);
      throw err;
    }
    res.redirect(303, '/console/workspace');
  });

  r.post('/workspace/secrets/:name/delete', async (req, res) => {
    await deleteSecret(deps.prisma, { workspaceId: req.consoleSession!.workspaceId, name: String(req.params.name) });
    res.redirect(303, '/console/workspace');
  });
  return r;
}
