/** A URL's origin for a refusal's reason: "an opaque origin" or "an unparseable address" when it has none. */
export function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? "an opaque origin" : origin;
  } catch {
    return "an unparseable address";
  }
}
