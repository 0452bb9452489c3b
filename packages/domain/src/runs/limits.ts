import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../shared/jsonDepth';
import { holdsUnstorableText } from '../shared/nul';
import type { StepError } from './runStore';

/**
 * The most a step's output (or a run's output) may take in the read model, as JSON. Outputs
 * live in PostgreSQL, never in Temporal history, so this bounds rows, not history; a larger
 * output fails its step with `step_output_too_large` (the run's: `output_too_large`).
 */
export const MAX_STEP_OUTPUT_BYTES = 2 * 1024 * 1024;

/**
 * The most a run's step outputs may take together, as JSON: the step whose output would pass it
 * fails with `run_data_too_large`, so a run's row, its reads and its events stay bounded.
 */
export const MAX_RUN_DATA_BYTES = 8 * 1024 * 1024;

/**
 * The deepest a step's output (or a run's output) may nest: the same figure as for inputs
 *, since the output is the next step's input and the data every later walk,
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

type OutputProblem = { code: 'output_too_deep' | 'output_not_storable' | 'output_too_large'; message: string };

/**
 * Why an output cannot be stored (depth first: a deep value is refused without serializing it;
 * then text jsonb refuses, U+0000 or an unpaired surrogate), or the bytes it takes as JSON.
 */
function measureOutput(value: unknown): OutputProblem | { bytes: number } {
  if (jsonDepthExceeds(value, MAX_OUTPUT_DEPTH)) {
    return { code: 'output_too_deep', message: `output is nested deeper than ${MAX_OUTPUT_DEPTH} levels` };
  }
  if (holdsUnstorableText(value)) {
    return { code: 'output_not_storable', message: 'output holds U+0000 or an unpaired UTF-16 surrogate, which cannot be stored' };
  }
  const bytes = jsonBytes(value);
  if (bytes > MAX_STEP_OUTPUT_BYTES) return { code: 'output_too_large', message: `output is larger than ${MAX_STEP_OUTPUT_BYTES} bytes` };
  return { bytes };
}

/** Why an output cannot be stored, or null. */
export function outputOverLimit(value: unknown): OutputProblem | null {
  const measured = measureOutput(value);
  return 'bytes' in measured ? null : measured;
}

/**
 * Why a step's output cannot be stored in its run, whose step outputs already take
 * `runDataBytes`: its own bounds (`step_output_too_large`, …), then the run's, or null.
 */
export function stepOutputProblem(value: unknown, runDataBytes: number): StepError | null {
  const measured = measureOutput(value);
  if (!('bytes' in measured)) return { code: `step_${measured.code}`, message: `The step's ${measured.message}` };
  if (runDataBytes + measured.bytes > MAX_RUN_DATA_BYTES) {
    return {
      code: 'run_data_too_large',
      message: `The run's step outputs would take more than ${MAX_RUN_DATA_BYTES} bytes together with this one's ${measured.bytes}`,
    };
  }
  return null;
}
