/**
 * One pass over a string that finds every occurrence of any of a set of patterns and
 * replaces each maximal run of overlapping or touching occurrences by one marker, in time
 * linear in the string whatever the patterns: an Aho–Corasick automaton over UTF-16 code
 * units. Hand-written because the npm implementations either match grapheme clusters (a
 * secret beside a combining mark would be missed) or report every overlapping occurrence
 * (output, and time, grow with the number of patterns that end at each position).
 */

/**
 * A compiled set of patterns, {@link replaceMatches} runs it over a string. The states are
 * a trie of the patterns; state 0 is the root. Typed arrays, so a scan allocates nothing.
 */
export interface PatternMatcher {
  /** The transitions of state `s` are entries [edgeStart[s], edgeStart[s + 1]) of edgeUnit/edgeTarget, by unit. */
  readonly edgeStart: Int32Array;
  readonly edgeUnit: Uint16Array;
  readonly edgeTarget: Int32Array;
  /** The root's transitions as a table (0: none): most code units of a text start no pattern. */
  readonly fromRoot: Int32Array;
  /** Failure link of each state: the state of the longest proper suffix of its text. */
  readonly fail: Int32Array;
  /** Length of the longest pattern that ends each state's text (0: none). */
  readonly longest: Int32Array;
}

const UNITS = 0x10000;

/** The state reached from `state` by `unit` along the trie, or -1. */
function child(m: PatternMatcher, state: number, unit: number): number {
  if (state === 0) return m.fromRoot[unit] || -1;
  let lo = m.edgeStart[state];
  let hi = m.edgeStart[state + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const u = m.edgeUnit[mid];
    if (u === unit) return m.edgeTarget[mid];
    if (u < unit) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The state after reading `unit` in `state`: the longest suffix of the text read that is a state. */
function advance(m: PatternMatcher, state: number, unit: number): number {
  for (;;) {
    const next = child(m, state, unit);
    if (next >= 0) return next;
    if (state === 0) return 0;
    state = m.fail[state];
  }
}

/** Length of the longest common prefix of two strings. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Builds the automaton in typed arrays sized by the patterns' total length (no per-state
 * objects: a large secret set takes about 18 bytes per code unit of its forms). Sorted, the
 * patterns make the trie in one pass, each sharing its prefix with the one before it, states
 * numbered in depth-first order, so each state's children come in order of their unit; then
 * failure links breadth-first. Empty patterns are ignored.
 */
export function compilePatterns(patterns: readonly string[]): PatternMatcher {
  const sorted = [...new Set(patterns)].filter((p) => p.length > 0).sort();
  const capacity = 1 + sorted.reduce((n, p) => n + p.length, 0);
  const parent = new Int32Array(capacity);
  const unitIn = new Uint16Array(capacity);
  const depth = new Int32Array(capacity);
  const terminal = new Uint8Array(capacity);
  const path = new Int32Array(1 + sorted.reduce((n, p) => Math.max(n, p.length), 0));
  let states = 1;
  let previous = '';
  for (const pattern of sorted) {
    // Sorted, no earlier pattern shares more of this one than the one just before it.
    const shared = commonPrefix(previous, pattern);
    for (let i = shared; i < pattern.length; i++) {
      parent[states] = path[i];
      unitIn[states] = pattern.charCodeAt(i);
      depth[states] = i + 1;
      path[i + 1] = states++;
    }
    terminal[path[pattern.length]] = 1;
    previous = pattern;
  }
  const m = {
    edgeStart: new Int32Array(states + 1),
    edgeUnit: new Uint16Array(states - 1),
    edgeTarget: new Int32Array(states - 1),
    fromRoot: new Int32Array(UNITS),
    fail: new Int32Array(states),
    longest: new Int32Array(states),
  };
  // Grouped by parent (counting sort); depth-first numbering keeps each group in unit order.
  for (let s = 1; s < states; s++) m.edgeStart[parent[s] + 1]++;
  for (let s = 1; s <= states; s++) m.edgeStart[s] += m.edgeStart[s - 1];
  const filled = m.edgeStart.slice(0, states);
  for (let s = 1; s < states; s++) {
    const e = filled[parent[s]]++;
    m.edgeUnit[e] = unitIn[s];
    m.edgeTarget[e] = s;
    if (parent[s] === 0) m.fromRoot[unitIn[s]] = s;
  }
  const queue = new Int32Array(states);
  let tail = 1;
  for (let head = 0; head < tail; head++) {
    const state = queue[head];
    // A proper suffix is shorter, so its state left the queue before this one.
    m.longest[state] = terminal[state] ? depth[state] : m.longest[m.fail[state]];
    for (let e = m.edgeStart[state]; e < m.edgeStart[state + 1]; e++) {
      const next = m.edgeTarget[e];
      m.fail[next] = state === 0 ? 0 : advance(m, m.fail[state], m.edgeUnit[e]);
      queue[tail++] = next;
    }
  }
  return m;
}

/**
 * Replaces every occurrence of the matcher's patterns by `marker`, overlapping and touching
 * occurrences merged into one, except occurrences lying wholly inside an existing `marker`
 * (so replacing twice changes nothing). Linear: each code unit moves the automaton once
 * (failure links amortized), only the longest occurrence ending at a position matters (the
 * shorter ones lie inside it), and the merged ranges live on a stack each range enters once.
 */
export function replaceMatches(s: string, matcher: PatternMatcher, marker: string): string {
  const { longest } = matcher;
  if (s.length === 0 || longest.length === 1) return s;
  // Merged ranges [starts[i], ends[i]), sorted and neither overlapping nor touching.
  const starts: number[] = [];
  const ends: number[] = [];
  let nextMarker = s.indexOf(marker);
  let state = 0;
  for (let i = 0; i < s.length; i++) {
    state = advance(matcher, state, s.charCodeAt(i));
    const length = longest[state];
    if (length === 0) continue;
    const end = i + 1;
    let start = end - length;
    // The existing marker that could hold this occurrence: the first one not ending before it.
    while (nextMarker >= 0 && nextMarker + marker.length < end) nextMarker = s.indexOf(marker, nextMarker + marker.length);
    if (nextMarker >= 0 && nextMarker <= start) continue;
    while (ends.length > 0 && ends[ends.length - 1] >= start) {
      start = Math.min(start, starts.pop() as number);
      ends.pop();
    }
    starts.push(start);
    ends.push(end);
  }
  if (starts.length === 0) return s;
  let out = '';
  let pos = 0;
  for (let r = 0; r < starts.length; r++) {
    out += s.slice(pos, starts[r]);
    out += marker;
    pos = ends[r];
  }
  return out + s.slice(pos);
}
