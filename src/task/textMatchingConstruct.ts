import { decodeCssEscapes } from "./secretFieldSelector.js";

/**
 * The selector rule of a task that types a secret. Once the value is in the page (a field, or a
 * site that echoes it: a search box showing "results for ..."), a selector that matches on text or
 * on part of an attribute is an oracle: which element it picks, or whether it picks one, tells the
 * assistant something about the value, and dozens of such steps recover it character by character
 * (47 extract_attribute steps with :text-matches() did). So in such a task every selector must be
 * built from parts that cannot look at text:
 *
 * - CSS (bare or `css=`), without Playwright's text pseudo-classes (:text, :text-is,
 *   :text-matches, :has-text) and without attribute selectors that match part of a value (^=, $=,
 *   *=, ~=, |=); a whole-value `[attr="..."]` is allowed, since it only tests a full guess;
 * - the engines that compare one attribute whole (`id=`, `data-testid=`, `data-test-id=`,
 *   `data-test=`), and `nth=`, `visible=` and `internal:control=enter-frame`.
 *
 * One exception keeps ordinary logins writable: an acting step (click, fill, fill_secret, type,
 * select) may name its element by a literal label alone (isLiteralLabel).
 *
 * Everything else is refused, whatever it is nested in (:has(), :is(), :not(), `>>` chains): the
 * text engines (`text=`, quoted text, `internal:text=`, `internal:has-text=`, `has-text=`, ...),
 * XPath (`xpath=`, `//...`, `..`), roles with names (`role=`, `internal:role=`), labels, the
 * `internal:attr=` and `internal:testid=` engines (they can match part of a value), React and Vue
 * component selectors, and any engine this list does not know. An allowlist, so an engine a later
 * Playwright adds is refused until someone looks at it. CSS escapes and comments are undone first,
 * so `:t\65xt(` is seen as `:text(`.
 *
 * Returns why the selector is refused (naming the construct), or null when it may be used.
 */
export function textMatchingConstruct(selector: string, action: string): string | null {
  const parts = selectorParts(selector);
  if (ACTING.has(action) && parts.length === 1 && parts[0] !== undefined && isLiteralLabel(parts[0])) return null;
  for (const part of parts) {
    const name = part.name.startsWith("*") ? part.name.slice(1) : part.name;
    if (name === "css" || name === "css:light") {
      const refused = refusedCss(part.body);
      if (refused !== null) return refused;
      continue;
    }
    if (ATTRIBUTE_ENGINES.has(name)) continue;
    if (name === "nth" && /^\s*-?\d+\s*$/.test(part.body)) continue;
    if (name === "visible" && /^\s*(?:true|false)\s*$/.test(part.body)) continue;
    if (name === "internal:control" && part.body.trim() === "enter-frame") continue;
    return part.quoted ? "a quoted text selector" : `the ${name}= engine`;
  }
  return null;
}

/** Steps that act on the element they find and return nothing about it. */
const ACTING = new Set(["click", "fill", "fill_secret", "type", "select"]);

/**
 * A whole selector that names one control by a literal label: `text=Sign in`, `"Sign in"`,
 * `internal:text="Sign in"i`, `internal:label="Password"i`, `role=button[name="Sign in"]`,
 * without a regular expression. Acting on it either succeeds or ends the task, and the selector
 * offers no alternative whose choice a later step could read back, so a chain of such probes stops
 * at its first wrong guess, as a chain of expect_text steps does: allowed on acting steps.
 */
function isLiteralLabel(part: { name: string; body: string; quoted: boolean }): boolean {
  if (part.body.includes("/")) return false;
  if (part.quoted) return true;
  return LITERAL_ENGINES.has(part.name);
}

const LITERAL_ENGINES = new Set(["text", "internal:text", "internal:label", "role", "internal:role"]);

/** Engines that compare one attribute with the whole body (Playwright's attribute engines). */
const ATTRIBUTE_ENGINES = new Set(["id", "id:light", "data-testid", "data-testid:light", "data-test-id", "data-test-id:light", "data-test", "data-test:light"]);

/** Playwright's CSS extensions that match an element's text. */
const TEXT_PSEUDO = /:\s*(?:text|text-is|text-matches|has-text)(?![\w-])/i;
/** An attribute selector operator that matches part of a value. */
const PARTIAL_ATTRIBUTE = /[\^$*~|]\s*=/;

function refusedCss(body: string): string | null {
  // A CSS comment separates nothing: `:/**/text(` is `:text(`.
  const plain = decodeCssEscapes(body.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ""));
  const pseudo = TEXT_PSEUDO.exec(plain);
  if (pseudo !== null) return `the ${pseudo[0].toLowerCase()} pseudo-class`;
  if (PARTIAL_ATTRIBUTE.test(plain)) return "an attribute selector that matches part of a value (^=, $=, *=, ~=, |=)";
  return null;
}

/**
 * The parts of a Playwright selector, split as Playwright 1.65's parseSelectorString splits them:
 * on `>>` outside quotes; a part is `engine=body` when what precedes its first "=" is an engine
 * name, text when it is quoted, XPath when it starts with `//` or `..`, and CSS otherwise.
 */
function selectorParts(selector: string): { name: string; body: string; quoted: boolean }[] {
  const parts: { name: string; body: string; quoted: boolean }[] = [];
  let start = 0;
  let index = 0;
  let quote: string | undefined;
  const append = () => {
    const part = selector.substring(start, index).trim();
    const eq = part.indexOf("=");
    if (eq !== -1 && /^[a-zA-Z_0-9-+:*]+$/.test(part.substring(0, eq).trim()))
      parts.push({ name: part.substring(0, eq).trim(), body: part.substring(eq + 1), quoted: false });
    else if (part.length > 1 && (part[0] === '"' || part[0] === "'") && part[part.length - 1] === part[0])
      parts.push({ name: "text", body: part, quoted: true });
    else if (/^\(*\/\//.test(part) || part.startsWith("..")) parts.push({ name: "xpath", body: part, quoted: false });
    else parts.push({ name: "css", body: part, quoted: false });
  };
  if (!selector.includes(">>")) {
    index = selector.length;
    append();
    return parts;
  }
  // Inside a text engine's unquoted body, quotes are text, not string delimiters.
  const inTextBody = () => {
    const match = /^\s*text\s*=(.*)$/.exec(selector.substring(start, index));
    return match !== null && match[1] !== "";
  };
  while (index < selector.length) {
    const c = selector[index];
    if (c === "\\" && index + 1 < selector.length) index += 2;
    else if (c === quote) {
      quote = undefined;
      index += 1;
    } else if (quote === undefined && (c === '"' || c === "'" || c === "`") && !inTextBody()) {
      quote = c;
      index += 1;
    } else if (quote === undefined && c === ">" && selector[index + 1] === ">") {
      append();
      index += 2;
      start = index;
    } else index += 1;
  }
  append();
  return parts;
}
