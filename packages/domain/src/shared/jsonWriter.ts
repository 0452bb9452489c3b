/**
 * JSON text written piece by piece with an explicit stack, as `JSON.stringify` would write
 * it (`toJSON`, `undefined` and functions dropped from objects and `null` in arrays,
 * non-finite numbers as `null`), but at any depth: V8's own serializer throws a RangeError
 * a few thousand levels down, and data a run produces is not bounded by the gateway's 422.
 * `sortKeys` writes object keys in sorted order at every level (canonical JSON).
 */
export function writeJson(value: unknown, emit: (chunk: string) => void, opts: { sortKeys?: boolean } = {}): void {
  type Item = { text: string } | { value: unknown; inArray: boolean };
  const stack: Item[] = [{ value: prepare(value), inArray: false }];
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    if ('text' in item) {
      emit(item.text);
      continue;
    }
    const v = item.value;
    if (v === undefined) {
      // Only reachable for the top level or an array item: object members were filtered out.
      if (item.inArray) emit('null');
      continue;
    }
    if (v === null || typeof v !== 'object') {
      emit(JSON.stringify(v));
      continue;
    }
    // Pushed in reverse, so popped (and written) in order.
    if (Array.isArray(v)) {
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: prepare(v[i]), inArray: true });
        if (i > 0) stack.push({ text: ',' });
      }
      stack.push({ text: '[' });
      continue;
    }
    const keys = Object.keys(v);
    if (opts.sortKeys) keys.sort();
    const members: Array<[string, unknown]> = [];
    for (const k of keys) {
      const member = prepare((v as Record<string, unknown>)[k]);
      if (member !== undefined) members.push([k, member]);
    }
    stack.push({ text: '}' });
    for (let i = members.length - 1; i >= 0; i--) {
      stack.push({ value: members[i][1], inArray: false });
      stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(members[i][0])}:` });
    }
    stack.push({ text: '{' });
  }
}

/** What JSON.stringify writes for a value: its `toJSON()`, and nothing for functions and symbols. */
function prepare(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  return typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
}
