/**
 * Where a string (value or object key) holds U+0000, which PostgreSQL cannot store, as a path
 * under `root` (`input.a[2].b`); null when none does. Depth-first in document order with an
 * explicit stack, so no depth overflows the call stack; a path is built only for the hit.
 */
export function pathOfNul(value: unknown, root: string): string | null {
  type Node = { value: unknown; parent: Node | null; segment: string; key?: string };
  const pathOf = (node: Node): string => {
    const segments: string[] = [];
    for (let n: Node | null = node; n; n = n.parent) segments.push(n.segment);
    return segments.reverse().join('');
  };
  const stack: Node[] = [{ value, parent: null, segment: root }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    // A member's key is checked before anything under it.
    if (node.key?.includes('\u0000')) return `${pathOf(node.parent as Node)}.${JSON.stringify(node.key).slice(1, -1)}`;
    const v = node.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return pathOf(node);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: node, segment: `[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i];
        stack.push({ value: member, parent: node, segment: `.${key}`, key });
      }
    }
  }
  return null;
}

/** U+0000, or a UTF-16 surrogate without its other half: text PostgreSQL's jsonb refuses. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether PostgreSQL can store this text in a jsonb string. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** Whether any string or object key of a JSON value, at any depth, is text jsonb refuses (explicit stack). */
export function holdsUnstorableText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isStorableText(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [key, member] of Object.entries(v)) {
        if (!isStorableText(key)) return true;
        stack.push(member);
      }
    }
  }
  return false;
}
