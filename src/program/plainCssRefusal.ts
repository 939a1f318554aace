import { decodeCssEscapes } from "../task/secretFieldSelector.js";

/** An engine prefix as Playwright reads one: a name, then "=" (`text=`, `xpath=`, `id=`, `internal:role=`). */
const ENGINE_PREFIX = /^\s*[a-zA-Z_0-9+:*-]+\s*=/;
/** Playwright's own pseudo-classes, which the DOM's CSS does not have. */
const PLAYWRIGHT_PSEUDO = /:\s*(?:has-text|text|text-is|text-matches|visible|nth-match|left-of|right-of|above|below|near)(?![\w-])/i;

/**
 * Why a selector cannot be used in program mode, or null when it can. A program finds elements
 * with the page's own querySelectorAll, so a selector must mean the same there as in CDP mode,
 * where Playwright reads it: plain CSS, without Playwright's engines, `>>` chains, quoted text,
 * XPath or pseudo-classes. (Playwright's CSS also looks inside open shadow roots and the DOM's does
 * not: such a selector finds nothing in a program and its step fails, it never picks another element.)
 */
export function plainCssRefusal(selector: string): string | null {
  const plain = decodeCssEscapes(selector.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ""));
  if (selector.includes(">>")) return "a >> chain";
  const trimmed = selector.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith("'")) return "a quoted text selector";
  if (/^\(*\/\//.test(trimmed) || trimmed.startsWith("..")) return "an XPath selector";
  const engine = ENGINE_PREFIX.exec(selector);
  if (engine !== null) return `the ${engine[0].trim()} engine`;
  const pseudo = PLAYWRIGHT_PSEUDO.exec(plain);
  if (pseudo !== null) return `Playwright's ${pseudo[0].replace(/\s+/g, "").toLowerCase()} pseudo-class`;
  return null;
}
