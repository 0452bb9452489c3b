import { encodedBody } from '../shared/encodedBody';
import { holdsUnstorableText, isStorableText } from '../shared/nul';

/** True for `application/json`, `text/json`, `application/problem+json`, … */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const media = contentType.split(';')[0].trim().toLowerCase();
  const slash = media.indexOf('/');
  if (slash <= 0) return false;
  const subtype = media.slice(slash + 1);
  return subtype === 'json' || subtype.endsWith('+json');
}

function charsetOf(contentType: string | undefined): string {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1].toLowerCase() : 'utf-8';
}

/** The bytes as text in their declared charset (UTF-8 when unknown), or null when they are not valid text in it. */
function decodeText(bytes: Buffer, contentType: string | undefined): string | null {
  const strict = (label: string) => new TextDecoder(label, { fatal: true });
  let decoder;
  try {
    decoder = strict(charsetOf(contentType));
  } catch {
    decoder = strict('utf-8');
  }
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A response body as an http step's output holds it: parsed JSON for JSON content types
 * (the text when it does not parse), text otherwise; and, when neither can be stored (bytes
 * that are not valid text, or text or JSON holding U+0000 anywhere, keys included), the bytes
 * themselves as an {@link EncodedBody}, so no response can break the write of its step.
 */
export function decodeResponseBody(bytes: Buffer, contentType: string | undefined): unknown {
  const text = decodeText(bytes, contentType);
  if (text === null || !isStorableText(text)) return encodedBody(bytes, contentType);
  if (!isJsonContentType(contentType) || text.trim() === '') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return holdsUnstorableText(parsed) ? encodedBody(bytes, contentType) : parsed;
}
