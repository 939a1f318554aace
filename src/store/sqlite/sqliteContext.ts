import type Database from "better-sqlite3";
import type { JournalSealer } from "../../journal/createJournalSealer.js";

/** What every SQLite query function receives: the connection, the journal sealer and the clock. */
export interface SqliteContext {
  db: Database.Database;
  sealer: JournalSealer;
  clock: () => number;
  /** A prepared statement for this SQL text, prepared once per connection. */
  sql(text: string): Database.Statement;
}

export function createSqliteContext(db: Database.Database, sealer: JournalSealer, clock: () => number): SqliteContext {
  const cache = new Map<string, Database.Statement>();
  return {
    db,
    sealer,
    clock,
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
