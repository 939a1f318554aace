import { openSqliteDatabase } from "./sqliteBinding.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../rows/authenticRows.js";
import type { UnauthenticRow } from "../Store.js";
import { allRows } from "./authenticTableSql.js";
import { LATEST_SCHEMA_VERSION } from "./migrations.js";

/** What `errand doctor` reads from errand.db, opened read-only: nothing is migrated or written. */
export interface DatabaseFacts {
  /** "ok", or SQLite's first complaint. */
  integrity: string;
  schemaVersion: number;
  /** The newest schema this errand knows. */
  supportedVersion: number;
  ownerPasswordSet: boolean;
  breakers: { provider: string; state: string }[];
  /** Rows that grant authority and fail their MAC; null when not checked (no key given, another key than the journal's, or a schema older than this errand's). */
  unauthenticRows: UnauthenticRow[] | null;
  /** Whether the given key is the one the journal was written with; null when no key was given or there is no journal yet. */
  keyMatchesJournal: boolean | null;
}

/** With `sealer` (the master key's journal subkey), also checks every row that grants authority against its MAC. */
export function inspectDatabase(path: string, sealer?: JournalSealer): DatabaseFacts {
  const db = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = String(db.pragma("quick_check", { simple: true }));
    const has = (table: string) =>
      db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)?.n === 1;
    const schemaVersion = has("schema_migrations")
      ? (db.prepare<[], { v: number | null }>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0)
      : 0;
    const ownerPasswordSet = has("owner_secret") && (db.prepare<[], { n: number }>("SELECT count(*) AS n FROM owner_secret").get()?.n ?? 0) > 0;
    const breakers = has("provider_breakers")
      ? db.prepare<[], { provider: string; state: string }>("SELECT provider, state FROM provider_breakers ORDER BY provider").all()
      : [];
    const keyId = has("journal_head") ? db.prepare<[], { key_id: string }>("SELECT key_id FROM journal_head WHERE id = 1").get()?.key_id : undefined;
    const keyMatchesJournal = sealer === undefined || keyId === undefined ? null : sealer.macEquals(sealer.keyId, keyId);
    const unauthenticRows =
      sealer === undefined || keyMatchesJournal === false || schemaVersion !== LATEST_SCHEMA_VERSION
        ? null
        : AUTHENTIC_TABLES.flatMap((table) => unauthenticIn(sealer, table, allRows(db, table)));
    return { integrity, schemaVersion, supportedVersion: LATEST_SCHEMA_VERSION, ownerPasswordSet, breakers, unauthenticRows, keyMatchesJournal };
  } finally {
    db.close();
  }
}
