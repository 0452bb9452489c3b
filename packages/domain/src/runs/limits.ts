/**
 * The most a step's output (or a run's output) may take in the read model, as JSON. Outputs
 * live in PostgreSQL, never in Temporal history, so this bounds rows, not history; a larger
 * output fails its step with `step_output_too_large` (the run's: `output_too_large`).
 */
export const MAX_STEP_OUTPUT_BYTES = 2 * 1024 * 1024;

/** Bytes a JSON value takes once serialized (what PostgreSQL stores). */
export function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}
