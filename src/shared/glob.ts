// Glob patterns over names (model names today; price plans and key allow-lists may match models
// the same way): `*` stands for any run of characters (none included), `?` for exactly one, and
// every other character for itself, case-sensitively. No character classes or escapes: model names
// carry `[` and `]` literally (`claude-opus-4-8[1m]`).

export interface Glob {
  readonly pattern: string;
  /** How many literal characters it has: the more, the more specific (see mostSpecific). */
  readonly specificity: number;
  matches(name: string): boolean;
}

export const isGlob = (text: string): boolean => text.includes('*') || text.includes('?');

/** Literal characters: `claude-opus-*` (12) is more specific than `claude-*` (7). */
export const specificity = (pattern: string): number => [...pattern].filter((c) => c !== '*' && c !== '?').length;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileGlob(pattern: string): Glob {
  const source = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegExp(c))).join('');
  // `s`: a name with a line break still matches by its characters; anchors keep it whole.
  const regexp = new RegExp(`^${source}$`, 's');
  return { pattern, specificity: specificity(pattern), matches: (name) => regexp.test(name) };
}

/**
 * Whether some name matches both patterns (their languages intersect). Walks both patterns at
 * once: a `*` either ends or swallows one character of the other side. O(length x length).
 */
export function globsOverlap(a: string, b: string): boolean {
  const seen = new Map<number, boolean>();
  const walk = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = seen.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (a[i] === '*') result = walk(i + 1, j) || (j < b.length && walk(i, j + 1));
    else if (b[j] === '*') result = walk(i, j + 1) || (i < a.length && walk(i + 1, j));
    else if (i === a.length || j === b.length) result = i === a.length && j === b.length;
    else result = (a[i] === '?' || b[j] === '?' || a[i] === b[j]) && walk(i + 1, j + 1);
    seen.set(key, result);
    return result;
  };
  return walk(0, 0);
}

/**
 * The glob that matches `name` most specifically: the most literal characters wins. Callers that
 * need one answer refuse equal-specificity overlaps up front (two such globs that both match a
 * name overlap by definition); here the first of equals wins.
 */
export function mostSpecific<T extends { glob: Glob }>(entries: readonly T[], name: string): T | undefined {
  let best: T | undefined;
  for (const entry of entries) {
    if (best && entry.glob.specificity <= best.glob.specificity) continue;
    if (entry.glob.matches(name)) best = entry;
  }
  return best;
}
