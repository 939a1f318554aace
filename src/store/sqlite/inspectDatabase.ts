import Database from "better-sqlite3";
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
  /** Rows that grant authority and fail their MAC; null when not checked (no key given, or a schema older than this errand's). */
  unauthenticRows: UnauthenticRow[] | null;
}

/** With `sealer` (the master key's journal subkey), also checks every row that grants authority against its MAC. */
export function inspectDatabase(path: string, sealer?: JournalSealer): DatabaseFacts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = String(db.pragma("quick_check", { simple: true }));
    const has = (table: string) => db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)?.n === 1;
    const schemaVersion = has("schema_migrations") ? (db.prepare<[], { v: number | null }>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0) : 0;
    const ownerPasswordSet = has("owner_secret") && (db.prepare<[], { n: number }>("SELECT count(*) AS n FROM owner_secret").get()?.n ?? 0) > 0;
    const breakers = has("provider_breakers") ? db.prepare<[], { provider: string; state: string }>("SELECT provider, state FROM provider_breakers ORDER BY provider").all() : [];
    const unauthenticRows = sealer === undefined || schemaVersion !== LATEST_SCHEMA_VERSION ? null : AUTHENTIC_TABLES.flatMap((table) => unauthenticIn(sealer, table, allRows(db, table)));
    return { integrity, schemaVersion, supportedVersion: LATEST_SCHEMA_VERSION, ownerPasswordSet, breakers, unauthenticRows };
  } finally {
    db.close();
  }
}
