import { Router } from 'express';
import type { Request, Response } from 'express';
import { createTwoFilesPatch } from 'diff';
import { stringify as toYaml } from 'yaml';
import { AppError, applyWorkflowAndAnnounce, findWorkflow, getWorkflow, listWorkflows, parseDefinition, startRun } from '@svc/domain';
import type { FieldError } from '@svc/domain';
import { secretBoxOf } from '../deps';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { layout } from '../layout';
import { isAdmin } from '../roles';
import { refusal, sendPage } from '../session';
import { TEMPLATES } from '../templates';

function editorForm(csrf: string, text: string, problems: FieldError[] | null, action = '/console/workflows'): Safe {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${csrf}" />
    ${
      problems
        ? html`<div class="notice error" role="alert" id="problems">
            <p>The definition was not saved:</p>
            <ul>
              ${problems.map((p) => html`<li><code>${p.path || '(document)'}</code>: ${p.message}</li>`)}
            </ul>
          </div>`
        : ''
    }
    <label for="definition">Definition (YAML or JSON)</label>
    <textarea id="definition" name="definition" rows="24" spellcheck="false">${text}</textarea>
    <p><button type="submit">Validate and save</button></p>
  </form>`;
}

/** Workflows: list, page (steps, versions and their diff, trigger), editor, templates, test runs. */
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
                      <td>${w.updated_at}</td>
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

  r.get('/workflows/new', (req, res) => {
    const s = req.consoleSession!;
    const t = TEMPLATES[String(req.query.template ?? '')] ?? TEMPLATES.transform!;
    sendPage(
      res,
      200,
      layout({
        title: 'New workflow',
        session: s,
        body: html`<section>
          <h1>New workflow: ${t.title}</h1>
          ${editorForm(s.csrfToken, t.yaml, null)}
        </section>`,
      }),
    );
  });

  /** Parse with the CLI's parser; save a new version and raise workflow.updated; or show each problem at its path. */
  async function save(req: Request, res: Response, expectedId?: string) {
    const s = req.consoleSession!;
    const text = String((req.body as Record<string, unknown>).definition ?? '');
    const action = expectedId ? `/console/workflows/${expectedId}` : '/console/workflows';
    const problem = (problems: FieldError[]) =>
      sendPage(
        res,
        422,
        layout({
          title: 'Fix the definition',
          session: s,
          body: html`<section>
            <h1>Fix the definition</h1>
            ${editorForm(s.csrfToken, text, problems, action)}
          </section>`,
        }),
      );
    try {
      const definition = parseDefinition(text);
      if (expectedId) {
        const { row } = await findWorkflow(deps.prisma, s.workspaceId, expectedId);
        if (row.slug !== definition.slug)
          return problem([{ path: 'slug', message: `must stay "${row.slug}" (a new slug is a new workflow)` }]);
      }
      const result = await applyWorkflowAndAnnounce(deps.prisma, secretBoxOf(deps), {
        workspaceId: s.workspaceId,
        definition,
        baseUrl: deps.config.BASE_URL,
      });
      res.redirect(303, `/console/workflows/${result.workflow.id}?saved=${result.change}`);
    } catch (err) {
      // A definition the parser refused, or one over the workspace's caps (assignees per review step).
      if (err instanceof AppError && (err.code === 'validation_failed' || err.code === 'limit_exceeded')) {
        return problem(err.errors ?? [{ path: '', message: err.message }]);
      }
      throw err;
    }
  }

  r.post('/workflows', (req, res) => save(req, res));
  r.post('/workflows/:id', (req, res) => save(req, res, String(req.params.id)));

  r.get('/workflows/:id', async (req, res) => {
    const s = req.consoleSession!;
    const w = await getWorkflow(deps.prisma, {
      workspaceId: s.workspaceId,
      workflowId: String(req.params.id),
      baseUrl: deps.config.BASE_URL,
    });
    const versions = await deps.prisma.workflowVersion.findMany({ where: { workflowId: w.id }, orderBy: { version: 'desc' } });
    const yamlOf = (v: number) => toYaml(versions.find((x) => x.version === v)?.definition ?? {});
    const from = Number(req.query.from) || w.version - 1;
    const to = Number(req.query.to) || w.version;
    const diff =
      from >= 1 && versions.some((v) => v.version === from) && versions.some((v) => v.version === to)
        ? createTwoFilesPatch(`v${from}`, `v${to}`, yamlOf(from), yamlOf(to), '', '', { context: 3 })
        : null;
    const saved = String(req.query.saved ?? '');
    sendPage(
      res,
      200,
      layout({
        title: w.name,
        session: s,
        body: html`<section>
            <h1>${w.name}</h1>
            ${saved ? html`<p class="notice" role="status">${saved === 'unchanged' ? 'No change: the definition is the same as the current version.' : `Saved as version ${w.version}.`}</p>` : ''}
            <p>${w.description}</p>
            <p><code>${w.slug}</code> · version ${w.version} · <a href="/console/runs?workflow=${w.id}">runs</a></p>
            <p>
              Trigger URL: <code>${w.trigger.url}</code> · auth:
              ${w.trigger.auth.secret ? 'secret' : ''}${w.trigger.auth.secret && w.trigger.auth.signature ? ' + ' : ''}${w.trigger.auth.signature ? 'HMAC signature' : ''}${!w.trigger.auth.secret && !w.trigger.auth.signature ? 'none' : ''}
            </p>
            <h2>Steps</h2>
            <ol>
              ${w.steps.map((st) => html`<li><strong>${st.name}</strong> <span class="muted">${st.key} · ${st.type}</span></li>`)}
            </ol>
          </section>
          <section>
            <h2>Start a test run</h2>
            <form method="post" action="/console/workflows/${w.id}/runs">
              <input type="hidden" name="_csrf" value="${s.csrfToken}" />
              <label for="input">Input (JSON object)</label><textarea id="input" name="input" rows="4">{}</textarea>
              <p><button type="submit">Start run</button></p>
            </form>
          </section>
          ${
            isAdmin(s)
              ? html`<section>
                  <h2>Edit</h2>
                  ${editorForm(s.csrfToken, yamlOf(w.version), null, `/console/workflows/${w.id}`)}
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
              ${versions.map((v) => html`<li>v${v.version} · ${v.createdAt.toISOString()}</li>`)}
            </ul>
            ${diff ? html`<pre class="diff" id="diff">${diff}</pre>` : html`<p class="muted">Only one version so far.</p>`}
          </section>`,
      }),
    );
  });

  // A test run starts the stored, current definition with the given input (nothing else of the
  // form is read), which is why members may start one.
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
