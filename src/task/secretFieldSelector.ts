/**
 * Recognizes selectors that plainly aim at a credential field. Typing a literal into such a field
 * would put a secret into the task (and so into the journal and the digest); fill_secret exists for it.
 * Short words are matched only when no letter touches them, so "#otp_code" matches and "#hotpink" does not.
 * CSS escapes are decoded before matching, so "#pass\77 ord" is seen as "#password".
 */
const CREDENTIAL_HINT =
  /pass(?:word|wd|code|phrase)|secret|token|one[-_ ]?time|api[-_]?key|security[-_]?code|(?<![a-z])(?:pwd|otp|totp|mfa|2fa|cvv|cvc|pin)(?![a-z])/i;

/** A CSS escape: backslash + 1-6 hex digits (+ one optional whitespace), or backslash + any other character. */
const CSS_ESCAPE = /\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?|([^\n\r\f]))/g;

/** A selector with its CSS escapes decoded, so a rule sees what the browser's CSS parser will. */
export function decodeCssEscapes(selector: string): string {
  return selector.replace(CSS_ESCAPE, (_match, hex: string | undefined, char: string | undefined) => {
    if (hex === undefined) return char ?? "";
    const codePoint = Number.parseInt(hex, 16);
    const usable = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
    return usable ? String.fromCodePoint(codePoint) : "\uFFFD";
  });
}

export function looksLikeSecretField(selector: string): boolean {
  return CREDENTIAL_HINT.test(selector) || CREDENTIAL_HINT.test(decodeCssEscapes(selector));
}
