import type { Problem } from "../errors/result.js";
import { TASK_LIMITS } from "./limits.js";

export type UrlCheck = { ok: true; href: string; url: URL } | { ok: false; problem: Problem };

/**
 * Parses a URL the way browsers do (WHATWG) and returns its normalized href.
 * Only absolute http: and https: URLs pass; the browser is handed the href, never the raw text.
 */
export function normalizeHttpUrl(raw: string, path: string): UrlCheck {
  if (raw.length > TASK_LIMITS.urlChars) {
    return fail("too_long", path, `URL is ${raw.length} characters; the limit is ${TASK_LIMITS.urlChars}.`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail("invalid_url", path, "URL is not a valid absolute URL (write it in full, e.g. https://example.com/page).");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail("url_scheme_not_allowed", path, `URL scheme "${url.protocol}" is not allowed; only http: and https: are.`);
  }
  if (url.hostname === "") {
    return fail("invalid_url", path, "URL has no host.");
  }
  if (url.href.length > TASK_LIMITS.urlChars) {
    return fail("too_long", path, `URL is ${url.href.length} characters once normalized; the limit is ${TASK_LIMITS.urlChars}.`);
  }
  return { ok: true, href: url.href, url };
}

function fail(code: Problem["code"], path: string, message: string): UrlCheck {
  return { ok: false, problem: { code, path, message } };
}
