import { DAY, HOUR, MILLISECOND, MINUTE, SECOND } from "./units.js";

const UNITS: Record<string, number> = { ms: MILLISECOND, s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY };
const DURATION = /^(\d{1,12})(ms|s|m|h|d|w)$/;

/**
 * Parses a duration written as an integer and one unit (`500ms`, `90s`, `15m`, `12h`, `30d`, `2w`)
 * into milliseconds. Returns undefined for anything else (no fractions, no compound forms).
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  const unit = UNITS[match[2] ?? ""];
  if (unit === undefined) return undefined;
  const value = Number(match[1]) * unit;
  return Number.isSafeInteger(value) ? value : undefined;
}
