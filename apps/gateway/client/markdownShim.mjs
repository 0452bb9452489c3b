// Replaces codemirror-json-schema's markdown helper, which loads a syntax highlighter
// (WebAssembly) the console's CSP refuses: hover help is plain inline markdown, no raw HTML.
import MarkdownIt from 'markdown-it';

const renderer = new MarkdownIt({ html: false, linkify: false });

export function renderMarkdown(markdown, inline = true) {
  return inline ? renderer.renderInline(markdown) : renderer.render(markdown);
}
