/** The longest wait errand accepts from a provider's Retry-After; anything longer is clamped. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/**
 * Reads how long a provider asked us to wait, in whole seconds (rounded up), from response headers:
 * `retry-after-ms`, `retry-after` as delta-seconds, or `retry-after` as an HTTP date. Returns
 * undefined when no header is present or none parses; negative waits become 0.
 */
export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  const read = headerReader(headers);
  const ms = read("retry-after-ms");
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return clamp(Math.ceil(Number(ms) / 1000));
  const raw = read("retry-after");
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return clamp(Math.ceil(Number(text)));
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return clamp(Math.ceil((date - now) / 1000));
}

function clamp(seconds: number): number {
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}

/** SDKs hand headers over as a Headers object, a plain record, or not at all. */
function headerReader(headers: unknown): (name: string) => string | undefined {
  if (headers === null || typeof headers !== "object") return () => undefined;
  const maybeGet = (headers as { get?: unknown }).get;
  if (typeof maybeGet === "function") {
    return (name) => {
      const value: unknown = (maybeGet as (n: string) => unknown).call(headers, name);
      return typeof value === "string" ? value : undefined;
    };
  }
  const record = headers as Record<string, unknown>;
  return (name) => {
    for (const [key, value] of Object.entries(record)) {
      if (key.toLowerCase() !== name) continue;
      if (typeof value === "string") return value;
      if (Array.isArray(value) && typeof value[0] === "string") return value[0];
    }
    return undefined;
  };
}
