import type { Frame, Page } from "playwright-core";
import type { FailureContext, SelectorCandidate } from "../receipt/outlineTypes.js";
import { untrusted } from "../receipt/untrustedText.js";
import type { RawButton, RawField, RawOutline } from "./outlineScript.js";
import { OUTLINE_LIMITS, readRawOutline, shapeOutline } from "./pageOutline.js";

/** At most this many candidate selectors are offered for a failed one. */
export const MAX_CANDIDATES = 5;
/** Forms and headings kept in the failure outline (it is a hint, not a look). */
const FAILURE_OUTLINE = { forms: 2, headings: 5 } as const;

/** Words of a selector worth comparing: "#emial-input" → ["emial", "input"]; quoted text kept whole too. */
export function selectorWords(selector: string): string[] {
  const quoted = [...selector.matchAll(/["']([^"']{2,80})["']/g)].map((m) => (m[1] ?? "").toLowerCase());
  const words = selector
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2 && !["nth", "of", "type", "has", "text", "role", "name", "css", "div", "span"].includes(w));
  return [...new Set([...quoted, ...words])];
}

/** Edit distance bounded at 3 (enough to catch a typo; anything further counts as different). */
function closeTo(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j] ?? 0;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return (previous[b.length] ?? 99) <= 2;
}

/** How much an element looks like what the failed selector meant: ids and names weigh most, then labels and text. */
function score(words: readonly string[], element: RawField | RawButton): number {
  const idWords = `${element.id} ${element.name}`
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2);
  const text = ("label" in element ? element.label : element.text).toLowerCase();
  let total = 0;
  for (const word of words) {
    if (idWords.includes(word)) total += 4;
    else if (idWords.some((w) => w.length >= 3 && word.length >= 3 && (w.includes(word) || word.includes(w) || closeTo(w, word)))) total += 3;
    if (text.includes(word)) total += 2;
    else if (text.split(/\s+/).some((w) => w.length >= 3 && closeTo(w, word))) total += 1;
    if (word === element.type || word === element.tag) total += 0.5;
  }
  return total;
}

async function rankCandidates(page: Page | Frame, raw: RawOutline, failedSelector: string, scrub: (text: string) => string): Promise<SelectorCandidate[]> {
  const words = selectorWords(failedSelector);
  const elements = raw.groups.flatMap((g) => [...g.fields.filter((f) => f.type !== "hidden"), ...g.buttons]);
  const ranked = elements
    .map((element, order) => ({ element, order, score: score(words, element) }))
    .filter((r) => r.element.visible)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const picked: SelectorCandidate[] = [];
  for (const { element } of ranked) {
    if (picked.length >= MAX_CANDIDATES) break;
    const shaped = await shapeOutline(
      page,
      { ...raw, groups: [{ candidates: [], fields: "label" in element ? [element] : [], buttons: "label" in element ? [] : [element] }] },
      scrub,
    );
    const item = shaped.forms[0]?.fields[0] ?? shaped.forms[0]?.buttons[0];
    if (item === undefined || item.selector === null || item.selector === failedSelector) continue;
    picked.push({ selector: item.selector, kind: "label" in item ? item.type : "button", label: "label" in item ? item.label : item.text });
  }
  return picked;
}

/**
 * The page as it was when a step failed: URL, title, a short outline (around the expected element
 * when it exists) and up to five selectors near the one that failed, ranked by how much each
 * element's id, name, label or text resembles it. Read-only, and every text wrapped as untrusted.
 */
export async function readFailureContext(page: Page | Frame, failedSelector: string | undefined, scrub: (text: string) => string): Promise<FailureContext> {
  const matches =
    failedSelector === undefined
      ? 0
      : await page
          .locator(failedSelector)
          .count()
          .catch(() => 0);
  const whole = await readRawOutline(page);
  const region = matches === 1 && failedSelector !== undefined ? await readRawOutline(page, failedSelector) : whole;
  const trimmed: RawOutline = {
    ...region,
    headings: region.headings.slice(0, FAILURE_OUTLINE.headings),
    groups: region.groups.slice(0, FAILURE_OUTLINE.forms),
    links: [],
  };
  const outline = await shapeOutline(page, trimmed, scrub);
  return {
    url: outline.url,
    title: untrusted(scrub(whole.title), OUTLINE_LIMITS.titleChars),
    outline: { scoped: region.scoped, headings: outline.headings, forms: outline.forms },
    candidates: failedSelector === undefined ? [] : await rankCandidates(page, whole, failedSelector, scrub),
  };
}
