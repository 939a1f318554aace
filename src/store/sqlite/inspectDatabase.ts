import Database from "better-sqlite3";
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
}

export function inspectDatabase(path: string): DatabaseFacts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = String(db.pragma("quick_check", { simple: true }));
    const has = (table: string) => db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)?.n === 1;
    const schemaVersion = has("schema_migrations") ? (db.prepare<[], { v: number | null }>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0) : 0;
    const ownerPasswordSet = has("owner_secret") && (db.prepare<[], { n: number }>("SELECT count(*) AS n FROM owner_secret").get()?.n ?? 0) > 0;
    const breakers = has("provider_breakers") ? db.prepare<[], { provider: string; state: string }>("SELECT provider, state FROM provider_breakers ORDER BY provider").all() : [];
    return { integrity, schemaVersion, supportedVersion: LATEST_SCHEMA_VERSION, ownerPasswordSet, breakers };
  } finally {
    db.close();
  }
}
