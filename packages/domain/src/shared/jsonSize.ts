/**
 * Whether a JSON value's text would be longer than `limit` characters, counted roughly
 * (string lengths, keys and a character per scalar) without building the text: a huge
 * value must be refused before anything allocates its full size. Iterative, so depth
 * cannot overflow the stack.
 */
export function exceedsChars(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        total += k.length + 4;
        stack.push(item);
      }
    } else total += 4;
    if (total > limit) return true;
  }
  return false;
}
