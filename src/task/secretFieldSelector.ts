/**
 * Recognizes selectors that plainly aim at a credential field. Typing a literal into such a field
 * would put a secret into the task (and so into the journal and the digest); fill_secret exists for it.
 * Short words are matched only when no letter touches them, so "#otp_code" matches and "#hotpink" does not.
 */
const CREDENTIAL_HINT =
  /pass(?:word|wd|code|phrase)|secret|token|one[-_ ]?time|api[-_]?key|security[-_]?code|(?<![a-z])(?:pwd|otp|totp|mfa|2fa|cvv|cvc|pin)(?![a-z])/i;

export function looksLikeSecretField(selector: string): boolean {
  return CREDENTIAL_HINT.test(selector);
}
