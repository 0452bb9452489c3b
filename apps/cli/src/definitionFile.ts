import { readFileSync } from 'node:fs';
import YAML, { isMap, isScalar, isSeq, LineCounter } from 'yaml';
import type { Node } from 'yaml';
import { AppError, parseDefinition } from '@svc/domain';
import type { FieldError, WorkflowDefinition } from '@svc/domain';

/** A problem of a definition file, where it is in the file when that is known. */
export interface LocatedError extends FieldError {
  file: string;
  line?: number;
  column?: number;
}

const SEGMENT = /\.?([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** `steps[2].headers["X-Key"]` → ['steps', 2, 'headers', 'X-Key'] (the error paths' format). */
function pathSegments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < path.length) {
    const m = SEGMENT.exec(path);
    if (!m) break;
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
  }
  return out;
}

/**
 * Where a path points in the source: the key of its deepest field present (the item, for an
 * array index). JSON is read as YAML 1.2, of which it is a subset, for the positions alone.
 */
function locate(doc: YAML.Document, lines: LineCounter, path: string): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let offset = (node as Node | null)?.range?.[0];
  for (const seg of pathSegments(path)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      offset = (pair.key as Node).range?.[0];
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg]) {
      node = node.items[seg];
      offset = (node as Node).range?.[0];
    } else break;
  }
  if (offset === undefined) return undefined;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** Syntax errors carry their position in the message already. */
const IN_MESSAGE = /at line (\d+), column (\d+)/;

function located(file: string, text: string, errors: readonly FieldError[]): LocatedError[] {
  const lines = new LineCounter();
  const doc = YAML.parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lines });
  return errors.map((e) => {
    const inMessage = IN_MESSAGE.exec(e.message);
    const at = inMessage ? { line: Number(inMessage[1]), column: Number(inMessage[2]) } : e.path ? locate(doc, lines, e.path) : undefined;
    return { ...e, file, ...at };
  });
}

/**
 * Reads and parses a definition file as `svc workflows apply` does (JSON or YAML by its extension,
 * else detected). An invalid one throws `validation_failed` listing each problem at its line and column.
 */
export function readDefinitionFile(file: string): WorkflowDefinition {
  const text = readFileSync(file, 'utf8');
  const format = /\.json$/i.test(file) ? 'json' : /\.ya?ml$/i.test(file) ? 'yaml' : undefined;
  try {
    return parseDefinition(text, format);
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    throw new AppError(err.code, err.message, { errors: located(file, text, err.errors) });
  }
}
