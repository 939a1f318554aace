import { createHash } from "node:crypto";
import type { CheckpointEntry } from "./journalTypes.js";

/**
 * SHA-256 of a checkpoint's list: one JSON line [operationId, chainSeq, chainMac] per operation,
 * sorted by operation id in code-unit order (here, never by a database collation, so SQLite and
 * PostgreSQL agree). The head's MAC covers this digest and the count, so the stored list cannot be
 * shortened, extended or edited without the key.
 */
export function checkpointDigest(entries: readonly CheckpointEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
  const hash = createHash("sha256");
  for (const entry of sorted) hash.update(`${JSON.stringify([entry.operationId, entry.chainSeq, entry.chainMac])}\n`, "utf8");
  return hash.digest("hex");
}
