import { Router } from 'express';
import { findWorkflow, listWorkflows, startRun, toWorkflowView } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { versionText } from '../definitionText';
import { diffView } from '../diffView';
import { EDITOR_SCRIPT, editorForm } from '../editor';
import { exampleInput } from '../exampleInput';
import { stepGraph } from '../graph';
import { html } from '../html';
import { layout } from '../layout';
import { isAdmin } from '../roles';
import { refusal, sendPage } from '../session';
import { TEMPLATES } from '../templates';
import { time } from '../time';
import { takeConsoleStart } from '../startBudget';

/** Workflows: the list, a workflow's page (graph, versions and their diff, trigger, editor, test run), test runs. */
export function workflowPages(deps: ConsoleDeps): Router {
  const r = Router();

  r.get('/workflows', async (req, res) => {
    const s = req.consoleSession!;
    const page = await listWorkflows(deps.prisma, { workspaceId: s.workspaceId, limit: 100, baseUrl: deps.config.BASE_URL });
    sendPage(
      res,
      200,
      layout({
        title: 'Workflows',
        session: s,
        body: html`<section>
            <h1>Workflows</h1>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Slug</th>
                    <th scope="col">Version</th>
                    <th scope="col">Steps</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  ${page.data.map(
                    (w) =>
                      html`<tr>
                        <td><a href="/console/workflows/${w.id}">${w.name}</a></td>
                        <td>${w.slug}</td>
                        <td>${w.version}</td>
                        <td>${w.steps.length}</td>
                        <td>${time(w.updated_at)}</td>
                      </tr>`,
                  )}
                  ${
                    page.data.length
                      ? ''
                      : html`<tr>
                          <td colspan="5" class="muted">No workflows yet.</td>
                        </tr>`
                  }
                </tbody>
              </table>
            </div>
          </section>
          ${
            isAdmin(s)
              ? html`<section>
                  <h2>New workflow from a template</h2>
                  <ul>
                    ${Object.entries(TEMPLATES).map(([k, t]) => html`<li><a href="/console/workflows/new?template=${k}">${t.title}</a></li>`)}
                  </ul>
                </section>`
              : html`<p class="muted">Only workspace admins create and edit workflows.</p>`
          }`,
      }),
    );
  });

  r.get('/workflows/:id', async (req, res) => {
    const s = req.consoleSession!;
    const { row, definition } = await findWorkflow(deps.prisma, s.workspaceId, String(req.params.id));
    const w = toWorkflowView(row, definition, deps.config.BASE_URL);
    const versions = await deps.prisma.workflowVersion.findMany({ where: { workflowId: w.id }, orderBy: { version: 'desc' } });
    const version = (n: number) => versions.find((x) => x.version === n);
    const from = Number(req.query.from) || w.version - 1;
    const to = Number(req.query.to) || w.version;
    const diff =
      from >= 1 && version(from) && version(to)
        ? diffView(`v${from}`, `v${to}`, versionText(version(from)), versionText(version(to)))
        : null;
    const saved = String(req.query.saved ?? '');
    const admin = isAdmin(s);
    const post = (path: string, label: string, cls = '') =>
      html`<form method="post" action="/console/workflows/${w.id}/${path}" class="inline">
        <input type="hidden" name="_csrf" value="${s.csrfToken}" /><button type="submit" class="${cls}">${label}</button>
      </form>`;
    const auth =
      [w.trigger.auth.secret ? 'secret' : '', w.trigger.auth.signature ? 'HMAC signature' : ''].filter(Boolean).join(' + ') || 'none';
    sendPage(
      res,
      200,
      layout({
        title: w.name,
        session: s,
        scripts: admin ? [EDITOR_SCRIPT] : [],
        body: html`<section>
            <h1>${w.name}</h1>
            ${saved ? html`<p class="notice" role="status">${saved === 'unchanged' ? 'No change: the definition is the same as the current version.' : `Saved as version ${w.version}.`}</p>` : ''}
            ${row.archivedAt ? html`<p class="notice error" id="archived">Archived ${time(row.archivedAt)}: hidden from lists; starts no new runs. Its runs are kept.</p>` : ''}
            <p>${w.description}</p>
            <p><code>${w.slug}</code> · version ${w.version} · <a href="/console/runs?workflow=${w.id}">runs</a></p>
            <p class="wrap">
              Trigger URL: <code>${w.trigger.url}</code> · auth: ${auth} · trigger
              <strong id="trigger-state">${row.triggerEnabled ? 'on' : 'off'}</strong>
            </p>
            ${
              admin
                ? html`<p>
                    ${row.triggerEnabled ? post('trigger/off', 'Turn trigger off') : post('trigger/on', 'Turn trigger on', 'ok')}
                    ${row.archivedAt ? post('restore', 'Restore', 'ok') : post('archive', 'Archive', 'danger')}
                  </p>`
                : ''
            }
            <h2>Steps</h2>
            <div class="graph-wrap">${stepGraph(definition.steps)}</div>
          </section>
          ${
            row.archivedAt
              ? ''
              : html`<section>
                  <h2>Start a test run</h2>
                  <form method="post" action="/console/workflows/${w.id}/runs">
                    <input type="hidden" name="_csrf" value="${s.csrfToken}" />
                    <label for="input">Input (JSON object)</label
                    ><textarea id="input" name="input" rows="6" spellcheck="false">
${JSON.stringify(exampleInput(w.input_schema), null, 2)}</textarea>
                    <p><button type="submit">Start run</button></p>
                  </form>
                </section>`
          }
          ${
            admin
              ? html`<section>
                  <h2>Edit</h2>
                  ${editorForm({ csrf: s.csrfToken, text: versionText(version(w.version)), action: `/console/workflows/${w.id}` })}
                </section>`
              : ''
          }
          <section>
            <h2>Versions</h2>
            <form method="get" action="/console/workflows/${w.id}" class="filters">
              <div>
                <label for="from">From</label
                ><select id="from" name="from">
                  ${versions.map((v) => html`<option value="${v.version}" ${v.version === from ? 'selected' : ''}>v${v.version}</option>`)}
                </select>
              </div>
              <div>
                <label for="to">To</label
                ><select id="to" name="to">
                  ${versions.map((v) => html`<option value="${v.version}" ${v.version === to ? 'selected' : ''}>v${v.version}</option>`)}
                </select>
              </div>
              <div><button type="submit">Compare</button></div>
            </form>
            <ul>
              ${versions.map((v) => html`<li>v${v.version} · ${time(v.createdAt)}</li>`)}
            </ul>
            ${diff ?? html`<p class="muted">Only one version so far.</p>`}
          </section>`,
      }),
    );
  });

  // A test run starts the stored, current definition with the given input (nothing else of the
  // form is read), which is why members may start one. It counts against the workspace's
  // request budget like a start through the API.
  r.post('/workflows/:id/runs', async (req, res) => {
    const s = req.consoleSession!;
    let input: unknown;
    try {
      input = JSON.parse(String((req.body as Record<string, unknown>).input ?? '{}'));
    } catch {
      return refusal(res, 400, 'Input not valid', 'The input must be a JSON object.', s);
    }
    if (!input || typeof input !== 'object' || Array.isArray(input))
      return refusal(res, 400, 'Input not valid', 'The input must be a JSON object.', s);
    const budget = await takeConsoleStart(deps, s.workspaceId);
    if (!budget.allowed) {
      res.setHeader('Retry-After', String(budget.retryAfterSeconds));
      return refusal(
        res,
        429,
        'Too many requests',
        `This workspace has used its requests for this minute; try again in ${budget.retryAfterSeconds} s.`,
        s,
      );
    }
    const started = await startRun(
      { prisma: deps.prisma, launcher: deps.launcher },
      {
        workspaceId: s.workspaceId,
        workflowId: String(req.params.id),
        input: input as Record<string, unknown>,
        body: { input },
        trigger: 'api',
      },
    );
    res.redirect(303, `/console/runs/${started.run.id}`);
  });
  return r;
}
