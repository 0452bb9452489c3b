import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../shared/jsonDepth';

/**
 * The most a step's output (or a run's output) may take in the read model, as JSON. Outputs
 * live in PostgreSQL, never in Temporal history, so this bounds rows, not history; a larger
 * output fails its step with `step_output_too_large` (the run's: `output_too_large`).
 */
export const MAX_STEP_OUTPUT_BYTES = 2 * 1024 * 1024;

/**
 * The deepest a step's output (or a run's output) may nest: the same figure as for inputs
 * (API.md §6), since the output is the next step's input and the data every later walk,
 * serializer and reader sees. Deeper fails the step with `step_output_too_deep` (the run's:
 * `output_too_deep`). An http step's output is `{status, headers, body}`: its body may nest 63.
 */
export const MAX_OUTPUT_DEPTH = MAX_JSON_DEPTH;

/**
 * Bytes a JSON value takes once serialized (what PostgreSQL stores). V8's serializer recurses, so
 * callers first bound the value's depth (every value here passed a MAX_JSON_DEPTH check).
 */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** Why an output cannot be stored (depth first: a deep value is refused without serializing it), or null. */
export function outputOverLimit(value: unknown): { code: 'output_too_deep' | 'output_too_large'; message: string } | null {
  if (jsonDepthExceeds(value, MAX_OUTPUT_DEPTH)) {
    return { code: 'output_too_deep', message: `output is nested deeper than ${MAX_OUTPUT_DEPTH} levels` };
  }
  if (jsonBytes(value) > MAX_STEP_OUTPUT_BYTES) {
    return { code: 'output_too_large', message: `output is larger than ${MAX_STEP_OUTPUT_BYTES} bytes` };
  }
  return null;
}
