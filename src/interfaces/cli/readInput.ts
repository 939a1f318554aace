import { readFileSync } from "node:fs";
import { readStdinText } from "./output.js";
import { UsageError } from "./usageError.js";

/** Reads a named file, or standard input for "-". */
export function readInputText(source: string | undefined): string {
  if (source === undefined) throw new UsageError("missing input: give a file path, or - for standard input");
  try {
    return source === "-" ? readStdinText() : readFileSync(source, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new UsageError(`cannot read ${source === "-" ? "standard input" : source} (${reason})`);
  }
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJsonText(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "not JSON" };
  }
}
