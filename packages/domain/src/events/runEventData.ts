import { jsonBytes } from '../runs/limits';
import type { RunView } from '../runs/runView';

/** The most a webhook delivery's body takes, as JSON. */
export const MAX_EVENT_BODY_BYTES = 256 * 1024;

/** Room left for the body's envelope around `data` (`id`, `type`, `created_at`, `workspace_id`). */
const ENVELOPE_BYTES = 1024;

/** The run's error message is cut to this many characters when nothing else brings its event under the cap. */
const MAX_EVENT_MESSAGE_CHARS = 1_000;

/** A run as an event's data; `truncated` only when its data was left out. */
export type RunEventData = Omit<RunView, 'steps'> & { steps?: RunView['steps'] | null; truncated?: true };

const fits = (data: unknown): boolean => jsonBytes(data) + ENVELOPE_BYTES <= MAX_EVENT_BODY_BYTES;

/**
 * A `run.*` event's data, made once when the event is recorded, so every endpoint and every
 * attempt gets the same small body: the run as `GET` shows it when the delivery body fits
 * {@link MAX_EVENT_BODY_BYTES}; otherwise `truncated: true`, with the run's input, output,
 * step outputs and review data as null (the receiver reads the run by id). Should that not be
 * enough (a hundred steps with long error messages), the steps and the review are null too,
 * and the run's error message is cut short: what is left is bounded whatever the run holds.
 */
export function runEventData(run: RunView): RunEventData {
  if (fits(run)) return run;
  const truncated: RunEventData = {
    ...run,
    truncated: true,
    input: null,
    output: null,
    steps: run.steps?.map((step) => ({ ...step, output: null })),
    review: run.review ? { ...run.review, data: null } : run.review,
  };
  if (fits(truncated)) return truncated;
  const error = run.error && { ...run.error, message: run.error.message.slice(0, MAX_EVENT_MESSAGE_CHARS) };
  return { ...truncated, steps: null, review: null, error };
}
