import { existsSync } from "node:fs";
import { openSqliteDatabase } from "./sqliteBinding.js";

/**
 * The key id the journal head of the database at `path` names, read-only (nothing is created or
 * migrated); undefined when there is no database or no journal in it yet.
 */
export function readJournalKeyId(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const db = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    const hasHead = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'journal_head'").get()?.n === 1;
    return hasHead ? db.prepare<[], { key_id: string }>("SELECT key_id FROM journal_head WHERE id = 1").get()?.key_id : undefined;
  } finally {
    db.close();
  }
}
