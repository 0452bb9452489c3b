import { performance } from 'node:perf_hooks';
import { REDACTED, redactText, secretPatterns, secretRedactor } from './redact';

/**
 * The plain definition of redaction, quadratic and obviously right: every occurrence of every
 * pattern, found one pattern at a time, dropped when it lies wholly inside an existing marker,
 * then overlapping and touching occurrences merged.
 */
function referenceRedact(s: string, secrets: readonly string[]): string {
  const markers: Array<[number, number]> = [];
  for (let i = s.indexOf(REDACTED); i >= 0; i = s.indexOf(REDACTED, i + REDACTED.length)) markers.push([i, i + REDACTED.length]);
  const hits: Array<[number, number]> = [];
  for (const pattern of secretPatterns(secrets)) {
    for (let i = s.indexOf(pattern); i >= 0; i = s.indexOf(pattern, i + 1)) {
      const end = i + pattern.length;
      if (!markers.some(([p, q]) => i >= p && end <= q)) hits.push([i, end]);
    }
  }
  hits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of hits) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  let out = '';
  let pos = 0;
  for (const [a, b] of merged) {
    out += s.slice(pos, a) + REDACTED;
    pos = b;
  }
  return out + s.slice(pos);
}

/** A small deterministic generator (mulberry32), so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

// Letters of the marker, JSON and URL escapes, a non-ASCII letter and a surrogate pair's halves:
// random texts over them are full of markers, near-markers and overlapping near-matches.
const ALPHABET = ['[', ']', 'R', 'E', 'D', 'A', 'C', 'T', 'a', 'b', '"', '\\', '%', '2', 'é', '\ud83d', '\ude00', REDACTED];

function randomText(next: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

describe('linear redaction', () => {
  test('agrees with the plain definition on random texts and secrets', () => {
    for (let seed = 1; seed <= 3_000; seed++) {
      const next = random(seed);
      const secrets = Array.from({ length: 1 + Math.floor(next() * 4) }, () => randomText(next, 1 + Math.floor(next() * 4)));
      // Some secrets are pieces of the marker itself, the hardest case for leaving markers alone.
      if (next() < 0.3) secrets.push(REDACTED.slice(Math.floor(next() * 5), 5 + Math.floor(next() * 6)));
      const text = randomText(next, Math.floor(next() * 60));
      const expected = referenceRedact(text, secrets);
      const actual = redactText(text, secrets);
      if (actual !== expected) throw new Error(`seed ${seed}: ${JSON.stringify({ text, secrets, expected, actual })}`);
      expect(secretRedactor(secrets)({ [text]: [text] })).toEqual({ [expected]: [expected] });
    }
  });

  test('redacting twice changes nothing, for secrets that are not pieces of the marker', () => {
    for (let seed = 1; seed <= 1_000; seed++) {
      const next = random(seed);
      const secrets = [randomText(next, 1 + Math.floor(next() * 3)).replace(/[[\]REDACT]/g, 'a')];
      const once = redactText(randomText(next, 50), secrets);
      expect(redactText(once, secrets)).toBe(once);
    }
  });

  test('cost grows linearly with the text, however dense with markers and near-matches', () => {
    // A one-character secret, every other piece a marker, near-markers and escaped forms:
    // the text a transform can emit to make redaction as slow as it can.
    const secret = 's"';
    const unit = `${REDACTED}s"x[REDACTED${REDACTED}s\\"[REDACTE]s%22${REDACTED}`;
    const textOf = (bytes: number, variant: number) =>
      `${variant}${unit.repeat(Math.ceil(bytes / unit.length))}`.slice(0, bytes).split('').join('');
    const redact = secretRedactor([secret]);
    // Eight texts of n against one of 8n: the same bytes, so the same allocation and cache
    // traffic, and the fastest of interleaved rounds, so what the work costs rather than what
    // else the machine was doing.
    const small = Array.from({ length: 8 }, (_, i) => textOf(64 * 1024, i));
    const large = [textOf(512 * 1024, 0)];
    const time = (texts: string[]): number => {
      const started = performance.now();
      for (const text of texts) expect(redact(text).length).toBeGreaterThan(0);
      return performance.now() - started;
    };
    let smallCost = Infinity;
    let largeCost = Infinity;
    for (let round = 0; round < 6; round++) {
      smallCost = Math.min(smallCost, time(small) / small.length);
      largeCost = Math.min(largeCost, time(large));
    }
    expect(redact(large[0])).not.toContain('s"x');
    const ratio = largeCost / smallCost;
    // 8× the text: about 8× the time when linear, 64× when quadratic.
    expect(ratio).toBeLessThan(16);
  });
});
