import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../../errors/errorMessage.js";
import { readInputText } from "./readInput.js";
import { UsageError } from "./usageError.js";

/** docs/SMOKE_TASK.json of this installation (running from src/ under tsx, or from dist/). */
export function defaultSmokeTask(): string {
  const candidates = ["../../../docs/SMOKE_TASK.json", "../../../../docs/SMOKE_TASK.json"].map((relative) => fileURLToPath(new URL(relative, import.meta.url)));
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) throw new UsageError("docs/SMOKE_TASK.json is not next to this errand; pass --task FILE");
  return found;
}

/** The operator's smoke task file as a JSON object (never a task a caller sends). */
export function readSmokeTask(file: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readInputText(file));
  } catch (error) {
    throw new UsageError(`the smoke task ${file} could not be read as JSON: ${errorMessage(error)}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UsageError(`the smoke task ${file} is not a JSON object`);
  return raw as Record<string, unknown>;
}
