import { isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import type { FieldError } from '../errors';
import { lineAndColumn } from './jsonLocate';

/** A problem of a definition text at its place: 1-based line and column, and the offsets it spans. */
export interface LocatedProblem extends FieldError {
  line: number;
  column: number;
  from: number;
  to: number;
}

const SEGMENT = /\.?([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;

/** `steps[2].headers["X-Key"]` (paths.ts) back into its segments. */
function segmentsOf(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  SEGMENT.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (SEGMENT.lastIndex < path.length && (m = SEGMENT.exec(path))) {
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)));
  }
  return out;
}

/** The span of the deepest node on the path (a missing field: its object; the last key itself: the key). */
function spanOf(root: unknown, segments: Array<string | number>): [number, number] | null {
  let node = root as Node | null;
  let span: [number, number] | null = node?.range ? [node.range[0], node.range[1]] : null;
  for (const [i, seg] of segments.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const key = pair.key as Node;
      if (key.range) span = [key.range[0], key.range[1]];
      node = pair.value as Node | null;
      if (node?.range && i < segments.length - 1) span = [node.range[0], node.range[1]];
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg]) {
      node = node.items[seg] as Node;
      if (node.range) span = [node.range[0], node.range[1]];
    } else break;
  }
  return span;
}

const AT = / at line (\d+), column (\d+)/;

/**
 * Places the parser's problems in the text they came from: a syntax error by the line and
 * column its message names (jsonLocate.ts and YAML's own), any other by its field path. A
 * path that is not in the text (a missing field) points at the nearest object that is.
 */
export function locateProblems(text: string, problems: FieldError[]): LocatedProblem[] {
  const lines = text.split('\n');
  const offsetOf = (line: number, column: number) =>
    lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + Math.max(0, column - 1);
  let doc: ReturnType<typeof parseDocument> | undefined;
  return problems.map((p) => {
    const at = AT.exec(p.message);
    if (at) {
      const from = Math.min(offsetOf(Number(at[1]), Number(at[2])), text.length);
      return { ...p, line: Number(at[1]), column: Number(at[2]), from, to: Math.min(from + 1, text.length) };
    }
    doc ??= parseDocument(text);
    const [from, to] = spanOf(doc.contents, segmentsOf(p.path)) ?? [0, 0];
    return { ...p, ...lineAndColumn(text, from), from, to: Math.max(to, from) };
  });
}
