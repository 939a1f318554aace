import { DAY, HOUR, MINUTE, SECOND } from "./units.js";

const UNITS: readonly [number, string][] = [
  [7 * DAY, "w"],
  [DAY, "d"],
  [HOUR, "h"],
  [MINUTE, "m"],
  [SECOND, "s"],
];

/**
 * Writes milliseconds the way parseDuration reads them, in the largest unit that divides them
 * exactly (`30d`, `36h`, `1500ms`), so a log line shows a setting as the operator writes it.
 */
export function formatDuration(ms: number): string {
  for (const [size, unit] of UNITS) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
