/**
 * What a secret value must be. The short-value rule: at least 8 characters once whitespace is
 * removed. errand scrubs every declared secret from everything it emits, matching it
 * case-insensitively and ignoring whitespace, in several encodings; a shorter value ("2024",
 * "1234", "admin") would shred ordinary text everywhere it appears, so it is refused outright
 * instead of being scrubbed half-heartedly or not at all. PINs and other short codes cannot be
 * declared (documented in docs/SECURITY.md).
 */
export const MIN_SECRET_CHARS = 8;
export const MAX_SECRET_CHARS = 4096;

/** Returns why the value is refused, or null when it is acceptable. Never quotes the value. */
export function secretValueProblem(value: string): string | null {
  const compact = value.replace(/\s+/gu, "");
  if (compact.length < MIN_SECRET_CHARS) {
    return `the value has ${compact.length} non-whitespace characters; a declared secret needs at least ${MIN_SECRET_CHARS}, because errand scrubs it from all output and a shorter one would erase ordinary text`;
  }
  if (value.length > MAX_SECRET_CHARS) return `the value is longer than ${MAX_SECRET_CHARS} characters`;
  // Control characters cannot be typed into a field and would survive scrubbing badly.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(value)) return "the value holds a control character (a line break, tab or similar)";
  return null;
}

/** Piped input and files usually end with one newline that is not part of the value; exactly one is dropped. */
export function dropOneTrailingNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}
