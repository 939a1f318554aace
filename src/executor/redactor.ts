/**
 * Scrubs secret values from anything errand emits. A secret can surface in several spellings:
 * as typed, percent-encoded (URLs), form-encoded (spaces as "+"), and JSON-escaped. Every
 * spelling of every registered secret is replaced, longest first so a shorter secret that is part
 * of a longer one cannot leave a fragment behind.
 */
export const REDACTED = "[REDACTED]";

export class Redactor {
  private spellings: string[] = [];

  /** Registers a secret value; values shorter than 4 characters are still scrubbed (fail closed). */
  add(secret: string): void {
    if (secret === "") return;
    const forms = new Set<string>([
      secret,
      encodeURIComponent(secret),
      encodeURI(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      escapeHtml(secret),
    ]);
    for (const form of forms) {
      if (form !== "" && !this.spellings.includes(form)) this.spellings.push(form);
      // Percent-encoding may appear in lowercase hex as well.
      const lower = form.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
      if (lower !== form && !this.spellings.includes(lower)) this.spellings.push(lower);
    }
    this.spellings.sort((a, b) => b.length - a.length);
  }

  get active(): boolean {
    return this.spellings.length > 0;
  }

  scrub(text: string): string {
    let out = text;
    for (const spelling of this.spellings) {
      if (out.includes(spelling)) out = out.split(spelling).join(REDACTED);
    }
    return out;
  }

  /** Scrubs every string inside a JSON-like value, keys included. */
  scrubDeep<T>(value: T): T {
    if (!this.active) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.scrub(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.scrub(k), this.walk(v)]));
    }
    return value;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
