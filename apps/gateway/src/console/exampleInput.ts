/** The JSON Schema keywords an example is built from. */
interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  format?: string;
}

const PLACEHOLDER: Record<string, unknown> = { string: 'text', number: 0, integer: 0, boolean: false, array: [], null: null };

function example(node: SchemaNode | undefined, depth: number): unknown {
  if (!node || typeof node !== 'object' || depth > 8) return null;
  if (node.const !== undefined) return node.const;
  if (node.examples?.length) return node.examples[0];
  if (node.default !== undefined) return node.default;
  if (node.enum?.length) return node.enum[0];
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (type === 'object' || (!type && node.properties)) {
    const out: Record<string, unknown> = {};
    for (const key of node.required ?? []) out[key] = example(node.properties?.[key], depth + 1);
    return out;
  }
  if (type === 'string' && node.format === 'email') return 'someone@example.com';
  if (type === 'string' && node.format === 'date-time') return new Date(0).toISOString();
  return type && type in PLACEHOLDER ? PLACEHOLDER[type] : null;
}

/** A test run's starting input: the required fields of the input schema, each with a placeholder of its type. */
export function exampleInput(inputSchema: Record<string, unknown> | null): Record<string, unknown> {
  const value = inputSchema ? example(inputSchema as SchemaNode, 0) : {};
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
