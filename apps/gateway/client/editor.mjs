// The definition editor: turns the page's textarea into CodeMirror. Bundled by
// scripts/bundle-console.js (esbuild) into apps/gateway/dist/client/editor.js; no eval, no
// inline script, so it runs under the console's CSP. Without it the textarea works as it is.
import { basicSetup } from 'codemirror';
import { EditorView, hoverTooltip } from '@codemirror/view';
import { Compartment } from '@codemirror/state';
import { syntaxHighlighting } from '@codemirror/language';
import { classHighlighter } from '@lezer/highlight';
import { linter, lintGutter } from '@codemirror/lint';
import { json, jsonLanguage } from '@codemirror/lang-json';
import { yaml, yamlLanguage } from '@codemirror/lang-yaml';
import { jsonCompletion, jsonSchemaHover, stateExtensions } from 'codemirror-json-schema';
import { yamlCompletion, yamlSchemaHover } from 'codemirror-json-schema/yaml';

const isJson = (text) => /^\s*[{[]/.test(text.replace(/^\uFEFF/, ''));

function modeFor(text) {
  return isJson(text)
    ? [json(), jsonLanguage.data.of({ autocomplete: jsonCompletion() }), hoverTooltip(jsonSchemaHover())]
    : [yaml(), yamlLanguage.data.of({ autocomplete: yamlCompletion() }), hoverTooltip(yamlSchemaHover())];
}

/** Problems come from the server's parser (the one Save uses), placed at their line and column. */
function serverLinter(textarea) {
  return linter(
    async (view) => {
      const body = new URLSearchParams({ definition: view.state.doc.toString(), _csrf: textarea.dataset.csrf });
      const res = await fetch(textarea.dataset.validateUrl, {
        method: 'POST',
        headers: { accept: 'application/json', 'x-csrf-token': textarea.dataset.csrf },
        body,
        credentials: 'same-origin',
      });
      if (!res.ok) return [];
      const { problems } = await res.json();
      const length = view.state.doc.length;
      return problems.map((p) => ({
        from: Math.min(p.from, length),
        to: Math.min(Math.max(p.to, p.from), length),
        severity: 'error',
        source: p.path || 'document',
        message: `${p.path ? `${p.path}: ` : ''}${p.message}`,
      }));
    },
    { delay: 400 },
  );
}

async function start(textarea) {
  let schema;
  try {
    schema = await (await fetch(textarea.dataset.schemaUrl, { credentials: 'same-origin' })).json();
  } catch {
    schema = undefined;
  }
  const mode = new Compartment();
  let json = isJson(textarea.value);
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      // CodeMirror writes its stylesheet as a <style> element: the page's CSP admits it by this nonce.
      EditorView.cspNonce.of(document.querySelector('meta[name="style-nonce"]')?.content ?? ''),
      // Tokens get stable classes (tok-string, tok-propertyName, …) that the stylesheet colours per theme.
      syntaxHighlighting(classHighlighter),
      mode.of(modeFor(textarea.value)),
      stateExtensions(schema),
      serverLinter(textarea),
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': 'Definition (YAML or JSON)' }),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged) return;
        const text = u.state.doc.toString();
        textarea.value = text;
        if (isJson(text) !== json) {
          json = isJson(text);
          u.view.dispatch({ effects: mode.reconfigure(modeFor(text)) });
        }
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(view.dom);
  textarea.form?.addEventListener('submit', () => (textarea.value = view.state.doc.toString()));
  view.dom.dataset.editor = 'ready';
}

for (const textarea of document.querySelectorAll('textarea[data-schema-url]')) void start(textarea);
