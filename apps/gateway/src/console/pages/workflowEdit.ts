import { Router } from 'express';
import type { Request, Response } from 'express';
import { AppError, applyWorkflowAndAnnounce, findWorkflow, locateProblems, parseDefinition } from '@svc/domain';
import type { LocatedProblem, WorkflowDefinition } from '@svc/domain';
import { secretBoxOf } from '../deps';
import type { ConsoleDeps } from '../deps';
import { EDITOR_SCRIPT, editorForm } from '../editor';
import { html } from '../html';
import { layout } from '../layout';
import { sendPage } from '../session';
import { TEMPLATES } from '../templates';

const SAVE_TARGET = /^\/console\/workflows(\/wf_[0-9a-z]{1,64})?$/;

type Checked = { ok: true; definition: WorkflowDefinition } | { ok: false; problems: LocatedProblem[] };

/** The CLI's parser over the author's text; its problems placed at their line and column. */
function check(text: string): Checked {
  try {
    return { ok: true, definition: parseDefinition(text) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') {
      return { ok: false, problems: locateProblems(text, err.errors ?? [{ path: '', message: err.message }]) };
    }
    throw err;
  }
}

/** The editor: new workflows from templates, Validate (HTML for forms, JSON for the editor's script), Save. */
export function workflowEditPages(deps: ConsoleDeps): Router {
  const r = Router();

  function editorPage(res: Response, req: Request, status: number, title: string, form: Parameters<typeof editorForm>[0]) {
    sendPage(
      res,
      status,
      layout({
        title,
        session: req.consoleSession,
        scripts: [EDITOR_SCRIPT],
        body: html`<section>
          <h1>${title}</h1>
          ${editorForm(form)}
        </section>`,
      }),
    );
  }

  r.get('/workflows/new', (req, res) => {
    const t = TEMPLATES[String(req.query.template ?? '')] ?? TEMPLATES.transform!;
    editorPage(res, req, 200, `New workflow: ${t.title}`, {
      csrf: req.consoleSession!.csrfToken,
      text: t.yaml,
      action: '/console/workflows',
    });
  });

  r.post('/workflows/validate', (req, res) => {
    const text = String((req.body as Record<string, unknown>).definition ?? '');
    const result = check(text);
    if (req.accepts(['html', 'json']) === 'json') {
      res.json({ valid: result.ok, problems: result.ok ? [] : result.problems });
      return;
    }
    const then = String(req.query.then ?? '');
    editorPage(res, req, result.ok ? 200 : 422, result.ok ? 'The definition is valid' : 'Fix the definition', {
      csrf: req.consoleSession!.csrfToken,
      text,
      action: SAVE_TARGET.test(then) ? then : '/console/workflows',
      problems: result.ok ? null : result.problems,
      valid: result.ok,
    });
  });

  /** Saves a new version with the author's text, raising workflow.updated; or shows each problem where it is. */
  async function save(req: Request, res: Response, expectedId?: string) {
    const s = req.consoleSession!;
    const text = String((req.body as Record<string, unknown>).definition ?? '');
    const action = expectedId ? `/console/workflows/${expectedId}` : '/console/workflows';
    const problem = (problems: LocatedProblem[]) =>
      editorPage(res, req, 422, 'Fix the definition', { csrf: s.csrfToken, text, action, problems });
    const result = check(text);
    if (!result.ok) return problem(result.problems);
    if (expectedId) {
      const { row } = await findWorkflow(deps.prisma, s.workspaceId, expectedId);
      if (row.slug !== result.definition.slug) {
        const message = `must stay "${row.slug}" (a new slug is a new workflow)`;
        return problem(locateProblems(text, [{ path: 'slug', message }]));
      }
    }
    let saved;
    try {
      saved = await applyWorkflowAndAnnounce(deps.prisma, secretBoxOf(deps), {
        workspaceId: s.workspaceId,
        definition: result.definition,
        baseUrl: deps.config.BASE_URL,
        source: text,
      });
    } catch (err) {
      // Over the workspace's caps (assignees per review step): shown like the parser's problems.
      if (err instanceof AppError && err.code === 'limit_exceeded') {
        return problem(locateProblems(text, err.errors ?? [{ path: '', message: err.message }]));
      }
      throw err;
    }
    res.redirect(303, `/console/workflows/${saved.workflow.id}?saved=${saved.change}`);
  }

  r.post('/workflows', (req, res) => save(req, res));
  r.post('/workflows/:id', (req, res) => save(req, res, String(req.params.id)));
  return r;
}
