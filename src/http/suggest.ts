/**
 * "Did you mean": the valid values nearest to a value that is not one, for the 400 of an enumerated parameter
 * and the CLI's usage errors. Nearness is the edit distance (insertions, deletions, substitutions and swaps of
 * neighbours) between the values as the caller spells them for matching (a search key, lower case), or, for
 * a valid value that starts with the text given word by word (`cardio` for `cardiology`) or holds it as words
 * (`diabetes` in `type 1 diabetes`), nearly none; a misspelt start counts as its own distance and a half
 * (`critical acess` for `critical access hospital`); another ending of the same stem, one edit (`cardiologist`
 * for `cardiology`: three edits, where `audiologist` is two).
 */

/** A valid value, how it is matched, and how it is shown. */
export interface Candidate {
  /** The value as matching sees it (a search key, lower case). */
  key: string;
  /** The value as a caller writes it. */
  shown: string;
}

/** At most this many suggestions: more reads as a list of everything. */
export const MAX_SUGGESTIONS = 3;

/**
 * The candidates nearest to `key` (matched as the candidates' keys are), nearest first, ties in the
 * candidates' order (put the likeliest first: the most providers, the lowest id); none when nothing is near.
 * A candidate equal to `key` is nearest of all: a state's name for its code.
 */
export function nearest(key: string, candidates: readonly Candidate[], limit = MAX_SUGGESTIONS): string[] {
  if (key === '') return [];
  const allowed = Math.max(1, Math.floor(key.length / 4));
  const scored: Array<{ shown: string; distance: number; at: number }> = [];
  candidates.forEach((candidate, at) => {
    const distance = startsWithWords(candidate.key, key)
      ? 0.5
      : ` ${candidate.key} `.includes(` ${key} `)
        ? 0.75
        : Math.min(
            editDistance(key, candidate.key, allowed),
            0.5 + editDistance(key, leadingWords(candidate.key, key), allowed),
            sameStem(key, candidate.key) ? 1 : Infinity,
          );
    if (distance <= allowed) scored.push({ shown: candidate.shown, distance, at });
  });
  scored.sort((a, b) => a.distance - b.distance || a.at - b.at);
  return [...new Set(scored.map((s) => s.shown))].slice(0, limit);
}

/** ` (did you mean cardiology?)`, ` (did you mean NM, NY?)`, or nothing when no candidate is near. */
export function didYouMean(key: string, candidates: readonly Candidate[]): string {
  const found = nearest(key, candidates);
  return found.length === 0 ? '' : ` (did you mean ${found.join(', ')}?)`;
}

/** True when `a` and `b` share at least three quarters of the shorter one from their start, and four letters. */
function sameStem(a: string, b: string): boolean {
  const shorter = Math.min(a.length, b.length);
  let shared = 0;
  while (shared < shorter && a[shared] === b[shared]) shared++;
  return shared >= 4 && shared >= 0.75 * shorter;
}

/** As many words of `text` as `key` has (`critical access` of `critical access hospital` for `critical acess`). */
function leadingWords(text: string, key: string): string {
  return text.split(' ').slice(0, key.split(' ').length).join(' ');
}

/** True when every word of `prefix` starts the word of `text` in the same place (`fam med` of `family medicine`). */
function startsWithWords(text: string, prefix: string): boolean {
  const words = text.split(' ');
  const starts = prefix.split(' ');
  return starts.length <= words.length && starts.every((start, i) => start.length >= 2 && words[i].startsWith(start));
}

/**
 * The optimal string alignment distance of `a` and `b` (Levenshtein with swaps of neighbours), or a number
 * above `limit` as soon as it must exceed it.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}
