import type { SqliteDatabase, SqliteStatement } from "./sqliteBinding.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { IntegrityRefusal, UnauthenticRow } from "../Store.js";

/** What every SQLite query function receives: the connection, the journal sealer and the clock. */
export interface SqliteContext {
  db: SqliteDatabase;
  sealer: JournalSealer;
  clock: () => number;
  /** Operations refused since the store was last asked (Store.takeIntegrityRefusals), by id. */
  refusals: Map<string, IntegrityRefusal>;
  /** Rows that grant authority refused for a failing MAC since last asked (AccessStore.takeRowRefusals), by table and id. */
  rowRefusals: Map<string, UnauthenticRow>;
  /** The journal's id, read from its head once (it never changes). */
  journalId?: string;
  /** A prepared statement for this SQL text, prepared once per connection. */
  sql(text: string): SqliteStatement;
}

export function createSqliteContext(db: SqliteDatabase, sealer: JournalSealer, clock: () => number): SqliteContext {
  const cache = new Map<string, SqliteStatement>();
  return {
    db,
    sealer,
    clock,
    refusals: new Map(),
    rowRefusals: new Map(),
    sql(text) {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = db.prepare(text);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
