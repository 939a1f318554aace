/**
 * The candidate closest to what was typed, when it is close enough to be a likely typo (edit
 * distance at most a third of the word, at least 1 and at most 3) or what was typed is a prefix of
 * exactly one candidate; otherwise undefined, so an unrelated word gets no misleading hint.
 */
export function suggestNearest(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  if (word === "") return undefined;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i += 1) d[i * cols] = i;
  for (let j = 0; j < cols; j += 1) d[j] = j;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      d[i * cols + j] = value;
    }
  }
  return at(a.length, b.length);
}
