import type { RunView } from '@svc/domain';
import { html } from './html';
import type { Safe } from './html';
import { duration } from './time';

const LABEL_W = 170;
const BAR_W = 420;
const ROW_H = 26;
const NOTE_W = 130;

/** One attempt of a step tried more than once, as the database recorded it (run_step_attempts). */
export interface StepAttempt {
  key: string;
  number: number;
  startedAt: Date | null;
  endedAt: Date | null;
  error: unknown;
}

/** An attempt on the chart: its offsets (a start is known for http steps only), and whether it failed. */
interface Segment {
  start: number | null;
  end: number | null;
  failed: boolean;
}

interface Row {
  label: string;
  kind: string;
  start: number;
  end: number;
  note: string;
  title: string;
  attempts: Segment[];
}

const ms = (iso: string | Date | null | undefined) => (iso ? (iso instanceof Date ? iso.getTime() : Date.parse(iso)) : null);

/** Each attempt of a step tried more than once: the recorded ones, then the last, which the step's row ends. */
function attemptsOf(step: NonNullable<RunView['steps']>[number], recorded: StepAttempt[], created: number, end: number) {
  const byNumber = new Map(recorded.filter((a) => a.key === step.key).map((a) => [a.number, a]));
  if (step.attempts < 2 || byNumber.size === 0) return { segments: [], text: '' };
  const segments: Segment[] = [];
  const lines: string[] = [];
  for (let n = 1; n <= step.attempts; n++) {
    const a = byNumber.get(n);
    const last = n === step.attempts;
    const start = ms(a?.startedAt ?? (n === 1 && step.type === 'http' ? step.started_at : null));
    const stop = last ? end : ms(a?.endedAt);
    const error = last ? step.error : a?.error;
    const failed = !last || step.status === 'failed';
    segments.push({ start: start === null ? null : start - created, end: stop === null ? null : stop - created, failed });
    const when =
      start !== null && stop !== null
        ? `${duration(stop - start)} from ${duration(start - created)}`
        : stop !== null
          ? `ended at ${duration(stop - created)}`
          : '';
    lines.push(`attempt ${n}${when ? ` (${when})` : ''}${error && failed ? `: ${errorText(error)}` : ''}`);
  }
  return { segments, text: `; ${lines.join('; ')}` };
}

/** The rows of a run's waterfall: its queue time, then each step that started, as offsets from the run's creation. */
function rowsOf(run: RunView, recorded: StepAttempt[], now: number): Row[] {
  const created = ms(run.created_at) ?? now;
  const rows: Row[] = [];
  const started = ms(run.started_at);
  rows.push({
    label: 'queued',
    kind: 'queue',
    start: 0,
    end: (started ?? ms(run.finished_at) ?? now) - created,
    note: duration((started ?? ms(run.finished_at) ?? now) - created),
    title: 'Waiting for a slot of the workspace or a worker',
    attempts: [],
  });
  for (const s of run.steps ?? []) {
    const from = ms(s.started_at);
    if (from === null) continue;
    const to = ms(s.finished_at) ?? (TERMINAL.has(run.status) ? (ms(run.finished_at) ?? now) : now);
    const review = s.type === 'review' && run.review?.step_key === s.key;
    const kind = s.type === 'delay' ? 'delay' : review ? 'wait' : s.status;
    const attempts = s.attempts > 1 ? ` · ${s.attempts} attempts` : '';
    const tried = attemptsOf(s, recorded, created, to);
    rows.push({
      label: s.key,
      kind,
      start: from - created,
      end: to - created,
      note: `${duration(to - from)}${attempts}`,
      title: `${s.key} (${s.type}) ${s.status.replace(/_/g, ' ')}: started ${duration(from - created)} after creation, took ${duration(to - from)}${attempts}${
        s.error ? `; last error: ${errorText(s.error)}` : ''
      }${review ? ' (waiting for a person)' : s.type === 'delay' ? ' (durable sleep)' : ''}${tried.text}`,
      attempts: tried.segments,
    });
  }
  return rows;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e) return String((e as { message: unknown }).message);
  return JSON.stringify(e);
}

/**
 * A run's trace as a waterfall (SVG): its time in the queue, then each step from its first
 * attempt's start to its end, a retried step's attempts drawn on its bar (each with its error),
 * delays and a review's wait drawn apart; and a link to the run's workflow in the Temporal UI.
 */
export function runTrace(
  run: RunView,
  opts: { temporalUiUrl?: string; namespace: string; temporalWorkflowId: string; attempts: StepAttempt[] },
  now = Date.now(),
): Safe {
  const rows = rowsOf(run, opts.attempts, now);
  const span = Math.max(1, ...rows.map((r) => r.end));
  const x = (t: number) => LABEL_W + Math.max(0, Math.min(1, t / span)) * BAR_W;
  const width = LABEL_W + BAR_W + NOTE_W;
  const height = rows.length * ROW_H + 24;
  const ui = opts.temporalUiUrl
    ? `${opts.temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(opts.namespace)}/workflows/${encodeURIComponent(opts.temporalWorkflowId)}`
    : null;
  return html`<figure class="trace">
    <div class="trace-scroll" tabindex="0" role="region" aria-label="Trace chart">
      <svg
        class="trace-chart"
        role="img"
        aria-labelledby="trace-title trace-desc"
        viewBox="0 0 ${width} ${height}"
        width="${width}"
        height="${height}"
        xmlns="http://www.w3.org/2000/svg"
      >
        <title id="trace-title">Trace of this run: ${duration(span)} from creation</title>
        <desc id="trace-desc">${rows.map((r) => r.title).join('. ')}</desc>
        <line class="axis" x1="${LABEL_W}" y1="${height - 18}" x2="${LABEL_W + BAR_W}" y2="${height - 18}" />
        <text class="tick" x="${LABEL_W}" y="${height - 4}">0</text>
        <text class="tick" x="${LABEL_W + BAR_W}" y="${height - 4}" text-anchor="end">${duration(span)}</text>
        ${rows.map(
          (r, i) =>
            html`<g class="trace-row kind-${r.kind}" data-row="${r.label}">
              <title>${r.title}</title>
              <text class="label" x="4" y="${i * ROW_H + 17}">${r.label.length > 22 ? `${r.label.slice(0, 21)}…` : r.label}</text>
              <rect
                class="${r.attempts.length ? 'span' : ''}"
                x="${x(r.start)}"
                y="${i * ROW_H + 5}"
                width="${Math.max(2, x(r.end) - x(r.start))}"
                height="${ROW_H - 10}"
                rx="3"
              />
              ${r.attempts.map((a) =>
                a.start !== null && a.end !== null
                  ? html`<rect
                      class="attempt ${a.failed ? 'failed' : 'ok'}"
                      x="${x(a.start)}"
                      y="${i * ROW_H + 7}"
                      width="${Math.max(2, x(a.end) - x(a.start))}"
                      height="${ROW_H - 14}"
                      rx="2"
                    />`
                  : a.end !== null
                    ? html`<line
                        class="attempt-end ${a.failed ? 'failed' : 'ok'}"
                        x1="${x(a.end)}"
                        y1="${i * ROW_H + 3}"
                        x2="${x(a.end)}"
                        y2="${i * ROW_H + ROW_H - 3}"
                      />`
                    : '',
              )}
              <text class="note" x="${Math.min(x(r.end) + 6, LABEL_W + BAR_W + 6)}" y="${i * ROW_H + 17}">${r.note}</text>
            </g>`,
        )}
      </svg>
    </div>
    <figcaption class="muted">
      Offsets from the run’s creation. A step’s bar runs from its first attempt to its end; a retried step’s attempts are drawn on it.
      ${ui ? html`<a href="${ui}" rel="noopener" target="_blank">Open this run in the Temporal UI</a>` : 'Set TEMPORAL_UI_URL to link the run’s workflow in the Temporal UI.'}
    </figcaption>
  </figure>`;
}
