import type { Frame, Page } from "playwright-core";
import type { OutlineButton, OutlineField, OutlineForm, PageOutline } from "../receipt/outlineTypes.js";
import type { UntrustedText } from "../receipt/untrustedText.js";
import { untrusted } from "../receipt/untrustedText.js";
import { OUTLINE_SCRIPT } from "./outlineScript.js";
import type { RawButton, RawField, RawOutline } from "./outlineScript.js";

/** Bounds of an outline (docs/RECEIPTS.md "Look"): counts of each kind, and characters of each text. */
export const OUTLINE_LIMITS = {
  forms: 10,
  fields: 30,
  buttons: 10,
  options: 30,
  headings: 20,
  landmarks: 10,
  links: 30,
  /** Iframes a look lists, nested ones included. */
  frames: 10,
  /** Elements of each kind the page script looks at, at most. */
  scan: 300,
  textChars: 120,
  titleChars: 200,
  hrefChars: 500,
} as const;

/**
 * Identifier-like page values (names, option values) stay plain so a step can use them as they are:
 * at most 32 characters of letters, digits and _ . : @ [ ] -. Anything longer or richer could carry
 * a planted instruction, so it is wrapped like any other page text.
 */
function token(value: string): string | UntrustedText {
  return /^[\w.:@[\]-]{0,32}$/.test(value) ? value : untrusted(value, OUTLINE_LIMITS.textChars);
}

/** The first proposed selector Playwright also finds exactly once in `root` (its CSS engine pierces open shadow roots; the page's does not). */
export async function verifiedSelector(root: Page | Frame, candidates: readonly string[]): Promise<string | null> {
  for (const candidate of candidates) {
    const count = await root
      .locator(candidate)
      .count()
      .catch(() => 0);
    if (count === 1) return candidate;
  }
  return null;
}

async function outlineField(page: Page | Frame, raw: RawField): Promise<OutlineField> {
  return {
    label: untrusted(raw.label, OUTLINE_LIMITS.textChars),
    name: raw.name === "" ? null : token(raw.name),
    type: /^[a-z-]{1,20}$/.test(raw.type) ? raw.type : "text",
    selector: await verifiedSelector(page, raw.candidates),
    required: raw.required,
    visible: raw.visible,
    ...(raw.options === undefined ? {} : { options: raw.options.map((o) => ({ value: token(o.value), label: untrusted(o.label, OUTLINE_LIMITS.textChars) })) }),
  };
}

async function outlineButton(page: Page | Frame, raw: RawButton): Promise<OutlineButton> {
  return {
    text: untrusted(raw.text, OUTLINE_LIMITS.textChars),
    type: /^[a-z]{1,12}$/.test(raw.type) ? raw.type : "",
    selector: await verifiedSelector(page, raw.candidates),
    visible: raw.visible,
  };
}

/** Reads the raw outline in the page (or a frame): everything, or only the region around `scope` when it matches. */
export async function readRawOutline(page: Page | Frame, scope?: string): Promise<RawOutline> {
  const run = `(${OUTLINE_SCRIPT})(${JSON.stringify({ ...OUTLINE_LIMITS, scope: scope ?? null })})`;
  return page.evaluate<RawOutline>(run);
}

/**
 * Outlines the page for an assistant that must write a task: title, headings, landmarks, every
 * form's fields and buttons with a selector errand checked, and links; all page text wrapped as
 * untrusted and capped. Never types, clicks or reads a field's value.
 */
export async function readPageOutline(page: Page | Frame, scrub: (text: string) => string, scope?: string): Promise<PageOutline> {
  return shapeOutline(page, await readRawOutline(page, scope), scrub);
}

export async function shapeOutline(page: Page | Frame, raw: RawOutline, scrub: (text: string) => string): Promise<PageOutline> {
  const forms: OutlineForm[] = [];
  for (const group of raw.groups) {
    const fields: OutlineField[] = [];
    for (const f of group.fields) fields.push(await outlineField(page, { ...f, label: scrub(f.label) }));
    const buttons: OutlineButton[] = [];
    for (const b of group.buttons) buttons.push(await outlineButton(page, { ...b, text: scrub(b.text) }));
    forms.push({ selector: group.candidates.length === 0 ? null : await verifiedSelector(page, group.candidates), fields, buttons });
  }
  return {
    url: untrusted(scrub(raw.url), OUTLINE_LIMITS.hrefChars),
    title: untrusted(scrub(raw.title), OUTLINE_LIMITS.titleChars),
    headings: raw.headings.map((h) => ({ level: h.level, text: untrusted(scrub(h.text), OUTLINE_LIMITS.textChars) })),
    landmarks: raw.landmarks.map((l) => ({
      role: /^[a-z]{1,20}$/.test(l.role) ? l.role : "region",
      label: l.label === "" ? null : untrusted(scrub(l.label), OUTLINE_LIMITS.textChars),
    })),
    forms,
    links: raw.links.map((l) => ({ text: untrusted(scrub(l.text), OUTLINE_LIMITS.textChars), href: untrusted(scrub(l.href), OUTLINE_LIMITS.hrefChars) })),
  };
}
