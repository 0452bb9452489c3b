import { z } from 'zod';
import { definitionSchema } from './schema';

/** Where the console publishes the document (editors such as VS Code's YAML extension read it there). */
export const DEFINITION_SCHEMA_PATH = '/schemas/workflow-definition.json';

/** Help for each field, shown by editors on hover and beside completions. */
const FIELD_HELP: Record<string, string> = {
  name: 'A name for people (a step without one is named by its key).',
  slug: 'The workflow’s stable identifier in its workspace: applying a definition with a known slug makes a new version.',
  description: 'What the workflow is for.',
  input_schema: 'A JSON Schema the run input must satisfy; a run whose input fails it is refused with 422.',
  steps: 'The steps, run in order.',
  output: 'An expression over {input, steps}: the run’s output (default: the last step’s output).',
  trigger: 'How the workflow’s trigger URL authenticates requests.',
  key: 'The step’s unique key: a-z, 0-9 and _, starting with a letter. Later steps read steps.<key>.output.',
  type: 'What the step does: http, transform, condition, delay or review.',
  if: 'An expression: the step is skipped unless it is true.',
  retry: 'How often a failing step is tried, and how long to wait between attempts.',
  max_attempts: 'Attempts in all, 1 to 10.',
  backoff: 'fixed: the same interval between attempts; exponential: doubling it each time.',
  interval: 'The wait before the second attempt, e.g. "1s".',
  method: 'The HTTP method (default GET).',
  url: 'An absolute http(s) URL; may hold {{ … }} templates. Private-network targets are refused.',
  headers: 'Request headers; values may hold {{ … }} templates (e.g. {{ secrets.API_TOKEN }}).',
  body: 'The request body: any JSON value; strings in it may hold {{ … }} templates.',
  timeout: 'How long to wait, e.g. "30s".',
  allow_status: 'Non-2xx statuses that do not fail the step.',
  expression: 'A JSONata expression over {input, steps, secrets}.',
  message: 'The error message when the condition is false and there is no else.',
  else: 'The key of a later step to jump to when the condition is false.',
  duration: 'How long to wait, e.g. "30s" or "2h".',
  title: 'What the reviewer is asked; may hold {{ … }} templates.',
  instructions: 'Markdown shown to the reviewer; may hold {{ … }} templates.',
  assignees: 'Email addresses mailed a link to the review page.',
  data: 'An expression: what the reviewer looks at.',
  on_timeout: 'What an expired review means: reject (default) or approve.',
  on_reject: 'fail (default): a rejection fails the run; continue: the run goes on.',
  secret: 'Requests must carry the trigger secret in x-svc-secret.',
  signature: 'Requests must carry an HMAC-SHA256 signature of the body in x-svc-signature.',
  ip_allowlist: 'Only these addresses or CIDRs may call the trigger (empty: any).',
  required_headers: 'Headers a trigger request must carry (null: any value).',
};

type JsonObject = Record<string, unknown>;

function describe(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(describe);
  if (!node || typeof node !== 'object') return;
  const o = node as JsonObject;
  const props = o.properties as Record<string, JsonObject> | undefined;
  if (props && typeof props === 'object') {
    for (const [k, v] of Object.entries(props))
      if (FIELD_HELP[k] && v && typeof v === 'object' && !v.description) v.description = FIELD_HELP[k];
  }
  Object.values(o).forEach(describe);
}

/**
 * The JSON Schema (draft 2020-12) of the definition format, generated from the Zod schema the
 * parser validates with, as documents are written (defaults make fields optional). Checks the
 * schema cannot express (expressions compile, durations parse, `else` names a later step) are
 * the parser's alone.
 */
export function definitionJsonSchema(baseUrl: string): JsonObject {
  const schema = z.toJSONSchema(definitionSchema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  describe(schema);
  return {
    ...schema,
    $id: `${baseUrl.replace(/\/$/, '')}${DEFINITION_SCHEMA_PATH}`,
    title: 'svc workflow definition',
    description: 'A workflow: its input schema, its steps in order, its output and its trigger settings.',
  };
}
