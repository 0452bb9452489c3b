import type { LocatedProblem } from '@svc/domain';
import { DEFINITION_SCHEMA_PATH } from '@svc/domain';
import { html } from './html';
import type { Safe } from './html';

/** The editor's script: CodeMirror, bundled at build time (scripts/bundle-console.js). */
export const EDITOR_SCRIPT = '/console/static/client/editor.js';

export interface EditorArgs {
  csrf: string;
  text: string;
  /** Where Save posts: a new workflow, or a new version of this one. */
  action: string;
  problems?: LocatedProblem[] | null;
  /** After Validate: the text is a valid definition. */
  valid?: boolean;
}

/**
 * The definition editor: a textarea that works as it is without script, which the editor's
 * script turns into CodeMirror (YAML or JSON, completion and hover from the published JSON
 * Schema, problems marked where they are). Validate checks without saving; Save stores a version.
 */
export function editorForm({ csrf, text, action, problems, valid }: EditorArgs): Safe {
  return html`<form method="post" action="${action}" class="editor-form">
    <input type="hidden" name="_csrf" value="${csrf}" />
    ${
      problems?.length
        ? html`<div class="notice error" role="alert" id="problems">
            <p>The definition is not valid:</p>
            <ul>
              ${problems.map(
                (p) =>
                  html`<li data-line="${p.line}" data-column="${p.column}">
                    line ${p.line}, column ${p.column}: <code>${p.path || '(document)'}</code> ${p.message}
                  </li>`,
              )}
            </ul>
          </div>`
        : valid
          ? html`<p class="notice" role="status" id="problems">The definition is valid. Save it to make a new version.</p>`
          : ''
    }
    <label for="definition">Definition (YAML or JSON)</label>
    <textarea
      id="definition"
      name="definition"
      rows="24"
      spellcheck="false"
      data-schema-url="${DEFINITION_SCHEMA_PATH}"
      data-validate-url="/console/workflows/validate"
      data-csrf="${csrf}"
    >
${text}</textarea>
    <p class="actions">
      <button type="submit" formaction="/console/workflows/validate?then=${encodeURIComponent(action)}" class="secondary">Validate</button>
      <button type="submit">Save</button>
    </p>
  </form>`;
}
