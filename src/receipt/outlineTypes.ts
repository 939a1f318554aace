import type { UntrustedText } from "./untrustedText.js";

/**
 * What errand reports about a page: the outline `look` returns, and the failure context of a failed
 * step. Every string the page wrote is wrapped as UntrustedText; selectors were checked by errand to
 * match exactly one element. Bounds: src/executor/pageOutline.ts OUTLINE_LIMITS.
 */
export interface OutlineField {
  label: UntrustedText;
  /** The name attribute; page text, so wrapped unless it is one short plain token (pageOutline.ts token()). */
  name: string | UntrustedText | null;
  /** The input type as the browser reads it (text, password, email, ...), or select / textarea. */
  type: string;
  /** Checked by errand to match exactly this one element; null when no such selector was found. */
  selector: string | null;
  required: boolean;
  visible: boolean;
  /** A select's options: value (as a select step takes it) and label. */
  options?: { value: string | UntrustedText; label: UntrustedText }[];
}

export interface OutlineButton {
  text: UntrustedText;
  type: string;
  selector: string | null;
  visible: boolean;
}

export interface OutlineForm {
  /** The form's selector; null for the group of controls that sit in no form. */
  selector: string | null;
  fields: OutlineField[];
  buttons: OutlineButton[];
}

export interface PageOutline {
  /** Where the page ended up (redirects and the page's own history changes included): page-chosen, so wrapped. */
  url: UntrustedText;
  title: UntrustedText;
  headings: { level: number; text: UntrustedText }[];
  landmarks: { role: string; label: UntrustedText | null }[];
  forms: OutlineForm[];
  /** Hrefs are page-chosen text (a path can spell a sentence), so wrapped too. */
  links: { text: UntrustedText; href: UntrustedText }[];
  /** The page's iframes (a look's; absent when there are none). */
  frames?: OutlineFrame[];
}

/**
 * One iframe of a looked-at page. Only a frame on one of the task's hosts is read (its forms);
 * of any other errand says where it is and nothing from inside it.
 */
export interface OutlineFrame {
  /** What a step names as "frame" to look inside it: the iframe selectors from the page down, outermost first, each checked to match exactly one iframe. */
  frame: string[];
  /**
   * The origin of the frame's document: an address, page-chosen even on a task host (a wildcard
   * admits any subdomain), so wrapped. With loaded: false the frame holds no document from the web
   * (the browser refused or failed it, or it was still loading) and this is the origin of its src.
   */
  origin: UntrustedText;
  loaded?: false;
  /** Its forms, shaped as the page's: only for a frame on one of the task's hosts. */
  forms?: OutlineForm[];
}

export interface SelectorCandidate {
  /** Checked by errand to match exactly one element; usable as-is in a step. */
  selector: string;
  /** What the element is: a field's type, or "button". */
  kind: string;
  /** Its label or text. */
  label: UntrustedText;
}

/** A failed step's page, for the assistant to correct its task (docs/RECEIPTS.md "failure"). */
export interface FailureContext {
  url: UntrustedText;
  title: UntrustedText;
  /** The region around the expected element when it exists (scoped: true), else the start of the page. */
  outline: { scoped: boolean; headings: PageOutline["headings"]; forms: OutlineForm[] };
  candidates: SelectorCandidate[];
  /** The step's frame, when the context was read inside it (a frame step whose frame was reached). */
  frame?: string[];
}
