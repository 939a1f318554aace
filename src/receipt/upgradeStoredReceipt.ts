import type { Receipt } from "./receiptTypes.js";
import type { UntrustedText } from "./untrustedText.js";
import { UNTRUSTED_TEXT_CHARS, UNTRUSTED_URL_CHARS, isUntrustedText, untrusted, untrustedValue } from "./untrustedText.js";

/**
 * Reads a receipt as it was stored into today's shape. Receipts written before page-derived text
 * was wrapped where it is made carry plain strings in `checks[].observed`, `finalUrl`,
 * `fallback[].reason`, `network.blocked[]` (`url`, `reason`) and, with full retention, each value of
 * `outputs`; those are put into the untrusted wrapper here, with the caps (and, for extracted
 * values, the unflattened form) new receipts get, so every surface shows one shape whatever the
 * receipt's age. Already-wrapped values are kept as they are.
 *
 * This runs after the journal MAC has been checked against the stored body, and changes only the
 * copy that is reported: the stored event (and its MAC) is never rewritten.
 */
export function upgradeStoredReceipt(stored: Receipt): Receipt {
  const receipt = stored as unknown as Record<string, unknown> & Receipt;
  return {
    ...receipt,
    finalUrl: receipt.finalUrl === null || receipt.finalUrl === undefined ? null : wrap(receipt.finalUrl, UNTRUSTED_URL_CHARS),
    checks: (receipt.checks ?? []).map((check) => (check.observed === undefined ? check : { ...check, observed: wrap(check.observed, UNTRUSTED_TEXT_CHARS) })),
    fallback: (receipt.fallback ?? []).map((record) =>
      record.reason === undefined ? record : { ...record, reason: wrap(record.reason, UNTRUSTED_TEXT_CHARS) },
    ),
    network: {
      ...receipt.network,
      blocked: (receipt.network?.blocked ?? []).map((entry) => ({
        ...entry,
        url: wrap(entry.url, UNTRUSTED_URL_CHARS),
        reason: wrap(entry.reason, UNTRUSTED_TEXT_CHARS),
      })),
    },
    ...(receipt.outputs === undefined ? {} : { outputs: wrapValues(receipt.outputs) }),
  };
}

/** A full-retention receipt's extracted values: legacy plain strings wrapped whole (untrustedValue), wrapped ones kept, anything else empty. */
function wrapValues(outputs: unknown): Record<string, UntrustedText> {
  if (typeof outputs !== "object" || outputs === null) return {};
  return Object.fromEntries(
    Object.entries(outputs).map(([name, value]) => [name, isUntrustedText(value) ? value : untrustedValue(typeof value === "string" ? value : "")]),
  );
}

/** A legacy plain string is wrapped; a wrapped value stays; anything else becomes empty wrapped text (never passed through unmarked). */
function wrap(value: unknown, cap: number): UntrustedText {
  if (isUntrustedText(value)) return value;
  return untrusted(typeof value === "string" ? value : "", cap);
}
