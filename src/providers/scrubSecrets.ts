/** What replaces a credential or a CDP URL in any message errand builds from a provider failure. */
export const SCRUBBED = "[redacted]";

/** WebSocket URLs (CDP endpoints) are secrets whatever they contain: they are removed whole. */
const WEBSOCKET_URL = /\bwss?:\/\/[^\s"'<>`]+/gi;

/**
 * Removes credentials and CDP URLs from a message before it can reach a receipt, a log line or an
 * error. Each secret is removed as written and percent-encoded; every query value of a secret URL
 * is removed too, so a fragment of the URL echoed by a library cannot leak its token. Secrets
 * shorter than 4 characters are left alone (they would shred ordinary words).
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const spellings = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < 4) continue;
    spellings.add(secret);
    spellings.add(encodeURIComponent(secret));
    for (const value of queryValues(secret)) {
      if (value.length >= 4) {
        spellings.add(value);
        spellings.add(encodeURIComponent(value));
      }
    }
  }
  let out = text.replace(WEBSOCKET_URL, SCRUBBED);
  for (const spelling of [...spellings].sort((a, b) => b.length - a.length)) {
    if (out.includes(spelling)) out = out.split(spelling).join(SCRUBBED);
  }
  return out;
}

function queryValues(candidate: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) return [];
  try {
    const url = new URL(candidate);
    const values = [...url.searchParams.values()];
    if (url.password !== "") values.push(url.password, decodeURIComponent(url.password));
    return values;
  } catch {
    return [];
  }
}
