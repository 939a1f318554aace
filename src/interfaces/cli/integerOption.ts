import { stringOption } from "./commandContext.js";
import type { CommandContext } from "./commandContext.js";
import { UsageError } from "./usageError.js";

/** Reads --name as a whole number within bounds; undefined when absent, a usage error when malformed. */
export function integerOption(ctx: CommandContext, name: string, min: number, max: number): number | undefined {
  const raw = stringOption(ctx, name);
  if (raw === undefined) return undefined;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  return value;
}
