import type { ExpressionContext, HttpStep } from '../definitions/types';
import { evaluateExpression } from './evaluate';
import { ExpressionError } from './expressionError';
import { hasTemplates, parseTemplate, renderTemplates, templateValueToString } from './templates';

/**
 * An http step's `url` template. Each `{{ expr }}` value is percent-encoded as RFC 6570
 * simple expansion does (everything but `A–Z a–z 0–9 - . _ ~`), so input can never add
 * a host, port, userinfo, path segment, query or fragment to the URL the author wrote.
 * `{{ raw(expr) }}` inserts a value as it is — for a whole URL from a trusted source;
 * the SSRF guard still checks where it points when connecting.
 */

/** RFC 3986 unreserved characters stay; everything else is percent-encoded (UTF-8). */
export function encodeUrlValue(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export async function renderUrlTemplate(template: string, ctx: ExpressionContext): Promise<string> {
  if (!hasTemplates(template)) return template;
  let out = '';
  for (const p of parseTemplate(template)) {
    if (p.kind === 'text') {
      out += p.text;
      continue;
    }
    let text: string;
    try {
      text = templateValueToString(await evaluateExpression(p.expression, ctx));
    } catch (err) {
      if (err instanceof ExpressionError) throw err;
      throw new ExpressionError(String((err as Error)?.message ?? err), { position: p.offset });
    }
    out += p.raw ? text : encodeUrlValue(text);
  }
  return out;
}

/** An http step's url, headers and body, rendered for one attempt. */
export async function renderHttpRequest(
  step: Pick<HttpStep, 'url' | 'headers' | 'body'>,
  ctx: ExpressionContext,
): Promise<{ url: string; headers: unknown; body: unknown }> {
  const url = await renderUrlTemplate(step.url, ctx);
  const { headers, body } = (await renderTemplates({ headers: step.headers, body: step.body }, ctx)) as { headers: unknown; body: unknown };
  return { url, headers, body };
}
