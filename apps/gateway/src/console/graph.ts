import type { StepDefinition } from '@svc/domain';
import { html } from './html';
import type { Safe } from './html';

const NODE_W = 220;
const NODE_H = 44;
const GAP = 34;
const LEFT = 16;
const TOP = 12;
/** Room on the right for the arcs of `if` skips and `else` jumps, one lane each. */
const LANE = 18;

const y = (i: number) => TOP + i * (NODE_H + GAP);
const label = (name: string) => (name.length > 26 ? `${name.slice(0, 25)}…` : name);

/** What happens to the run on the way out of a step besides going on to the next. */
function exits(step: StepDefinition): string[] {
  if (step.type === 'condition') return [step.else ? `false: jump to ${step.else}` : 'false: the run fails'];
  if (step.type === 'review') {
    return [
      step.on_reject === 'continue' ? 'rejected: goes on' : 'rejected: the run fails',
      `expires: ${step.on_timeout === 'approve' ? 'approved' : 'rejected'}`,
    ];
  }
  return [];
}

/** A curve on the right-hand side from the bottom-right of step `from` to the top-right of step `to`. */
function arc(from: number, to: number, lane: number): string {
  const x = LEFT + NODE_W;
  const out = x + LANE * (lane + 1);
  const y1 = y(from) + NODE_H / 2;
  const y2 = y(to) + NODE_H / 2;
  return `M ${x} ${y1} C ${out} ${y1}, ${out} ${y2}, ${x + 6} ${y2}`;
}

/**
 * The steps as a server-rendered SVG: their order, the `if` skips, the `else` jumps and what
 * a review's outcomes do. With `statuses` (a run's), each step is drawn in its status. Colours
 * come from the stylesheet (classes), so themes apply; a title and a description make it
 * readable to screen readers, and each step names itself and its status.
 */
export function stepGraph(steps: StepDefinition[], statuses?: Record<string, string>): Safe {
  const index = new Map(steps.map((s, i) => [s.key, i]));
  const endIndex = steps.length;
  let lane = 0;
  const arcs: Safe[] = [];
  steps.forEach((s, i) => {
    if (s.if) {
      arcs.push(
        html`<path class="edge skip" d="${arc(Math.max(0, i - 1), i + 1, lane)}" marker-end="url(#arrow)"
          ><title>${s.key} is skipped unless ${s.if}</title></path
        >`,
      );
      lane++;
    }
    if (s.type === 'condition' && s.else && index.has(s.else)) {
      arcs.push(
        html`<path class="edge else" d="${arc(i, index.get(s.else)!, lane)}" marker-end="url(#arrow)"
          ><title>${s.key} false: jump to ${s.else}</title></path
        >`,
      );
      lane++;
    }
  });
  const width = LEFT + NODE_W + LANE * (lane + 1) + 150;
  const height = y(endIndex) + NODE_H / 2 + TOP;
  const described = steps.map((s, i) => `${i + 1}. ${s.key} (${s.type})${statuses ? `: ${statuses[s.key] ?? 'pending'}` : ''}`).join('; ');
  return html`<svg
    class="step-graph"
    role="img"
    aria-labelledby="graph-title graph-desc"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="graph-title">${statuses ? 'Steps of this run and their status' : 'Steps of this workflow'}</title>
    <desc id="graph-desc">${described}</desc>
    <defs>
      <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
        <path class="arrowhead" d="M 0 0 L 10 5 L 0 10 z" />
      </marker>
    </defs>
    ${steps.map((s, i) => {
      const status = statuses ? (statuses[s.key] ?? 'pending') : 'defined';
      const notes = exits(s);
      return html`<g class="node status-${status}" data-step="${s.key}">
        <title>${s.key} (${s.type})${statuses ? `: ${status.replace(/_/g, ' ')}` : ''}</title>
        <rect x="${LEFT}" y="${y(i)}" width="${NODE_W}" height="${NODE_H}" rx="8" />
        <text class="label" x="${LEFT + 12}" y="${y(i) + 19}">${label(s.name ?? s.key)}</text>
        <text class="sub" x="${LEFT + 12}" y="${y(i) + 36}"
          >${s.type}${statuses ? ` · ${status.replace(/_/g, ' ')}` : s.if ? ' · if …' : ''}</text
        >
        ${notes.map((n, k) => html`<text class="note" x="${LEFT + NODE_W + LANE * (lane + 1) + 4}" y="${y(i) + 16 + k * 16}">${n}</text>`)}
        <line
          class="edge"
          x1="${LEFT + NODE_W / 2}"
          y1="${y(i) + NODE_H}"
          x2="${LEFT + NODE_W / 2}"
          y2="${y(i + 1) - 2}"
          marker-end="url(#arrow)"
        />
      </g>`;
    })}
    <g class="node end">
      <title>The run ends</title>
      <circle cx="${LEFT + NODE_W / 2}" cy="${y(endIndex) + 12}" r="11" />
      <text class="sub" x="${LEFT + NODE_W / 2 + 18}" y="${y(endIndex) + 17}">end: output</text>
    </g>
    ${arcs}
  </svg>`;
}
