/**
 * Who decided a review, as the server authenticated it, beside the free-text
 * `decided_by` label a caller may choose. Each path sets it from its own credentials, never
 * from a request body:
 * - `api_key`: `POST /api/v1/runs/{run_id}/review`; the id is the API key's id.
 * - `review_link`: the signed review page; the id is the assignee the link was mailed to.
 * - `console`: a console member's session; the id is the member id.
 * - `cli`: `svc reviews decide`, which holds the database and Temporal credentials itself (it
 *   never goes through the API); the id is the OS account that ran it.
 * - `temporal`: an operator's `decideReview` signal from the Temporal UI or CLI; no id.
 * - `timeout`: the review expired; no id.
 */
export const DECIDED_VIA_TYPES = ['api_key', 'review_link', 'console', 'cli', 'temporal', 'timeout'] as const;
export type DecidedViaType = (typeof DECIDED_VIA_TYPES)[number];

export interface DecidedVia {
  type: DecidedViaType;
  id: string | null;
}

/** An expired review's decision was the timer's. */
export const DECIDED_VIA_TIMEOUT: DecidedVia = { type: 'timeout', id: null };

/** The stored pair as the API shows it (null when nobody decided, or before it was recorded). */
export function decidedViaOf(row: { decidedViaType: string | null; decidedViaId: string | null }): DecidedVia | null {
  return row.decidedViaType ? { type: row.decidedViaType as DecidedViaType, id: row.decidedViaId } : null;
}

const VIA_WORDS: Record<DecidedViaType, string> = {
  api_key: 'API key',
  review_link: 'review link of',
  console: 'console member',
  cli: 'svc CLI, OS account',
  temporal: 'Temporal signal',
  timeout: 'expiry',
};

/** One line for people (console, CLI): "API key key_…", "review link of ana@…", "expiry". */
export function decidedViaText(via: DecidedVia): string {
  return via.id ? `${VIA_WORDS[via.type]} ${via.id}` : VIA_WORDS[via.type];
}
