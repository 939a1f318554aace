import { SecretPattern } from "./secretPattern.js";

/**
 * Scrubs secret values from anything errand emits (receipts, final URLs, errors, observed text,
 * outputs, progress and log lines, journal bodies, HTTP results). Each registered value, and every
 * run of at least 8 of its characters, is found case-insensitively, ignoring whitespace inside it,
 * raw or percent-, form-, HTML-entity- or JSON-encoded, and in base64 (see SecretPattern). Longer
 * values are scrubbed first so a shorter secret that is part of a longer one cannot leave a
 * fragment behind.
 *
 * Short values: the registry refuses declared secrets under 8 non-whitespace characters
 * (src/secrets/secretValueRule.ts), so scrubbing never has to choose between eating ordinary text
 * and leaking; a short value handed to a Redactor directly is still scrubbed (fail closed).
 */
export const REDACTED = "[REDACTED]";

export class Redactor {
  private readonly entries: { value: string; pattern: SecretPattern }[] = [];

  /** Registers a secret value; registering the same value twice is harmless. */
  add(secret: string): void {
    if (secret.replace(/\s+/gu, "") === "" || this.entries.some((entry) => entry.value === secret)) return;
    this.entries.push({ value: secret, pattern: new SecretPattern(secret) });
    this.entries.sort((a, b) => b.value.length - a.value.length);
  }

  /** The compiled pattern of a registered value, so the egress guard matches with the same one instead of building its own. */
  patternOf(secret: string): SecretPattern | undefined {
    return this.entries.find((entry) => entry.value === secret)?.pattern;
  }

  get active(): boolean {
    return this.entries.length > 0;
  }

  scrub(text: string): string {
    let out = text;
    for (const entry of this.entries) out = entry.pattern.replace(out, REDACTED);
    return out;
  }

  /** True when the text carries any registered value in a spelling the redactor knows. */
  carries(text: string): boolean {
    return this.entries.some((entry) => entry.pattern.test(text));
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
