import { html } from './html';
import type { Safe } from './html';

/** An instant as `<time>`: UTC text that reads without script, localized in the browser (static/console.js). */
export function time(at: Date | string | null | undefined, empty = '—'): Safe | string {
  if (!at) return empty;
  const iso = typeof at === 'string' ? at : at.toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>`;
}

/** A duration in ms for people: 850 ms, 4.2 s, 3 min 5 s. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return m < 60 ? `${m} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
