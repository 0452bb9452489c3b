import { createTwoFilesPatch } from 'diff';
import { html } from './html';
import type { Safe } from './html';

/** A unified diff of two texts, each line classed (added, removed, hunk) so the stylesheet colours it. */
export function diffView(fromName: string, toName: string, from: string, to: string): Safe {
  const patch = createTwoFilesPatch(fromName, toName, from, to, '', '', { context: 3 });
  const lines = patch.split('\n').filter((l) => l !== '\\ No newline at end of file' && !l.startsWith('==='));
  const kind = (l: string) =>
    l.startsWith('+++') || l.startsWith('---')
      ? 'file'
      : l.startsWith('@@')
        ? 'hunk'
        : l.startsWith('+')
          ? 'add'
          : l.startsWith('-')
            ? 'del'
            : 'ctx';
  return html`<pre class="diff" id="diff">${lines.map((l) => html`<span class="diff-${kind(l)}">${l}</span>`)}</pre>`;
}
