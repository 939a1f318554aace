import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StoreLocation } from "./storeLocation.js";
import { describeStoreLocation } from "./storeLocation.js";
import { loadMasterKey, masterKeyPath } from "../keys/loadKey.js";
import { sqliteStorePath } from "../store/sqlite/sqliteStorePath.js";
import { exposedMode } from "../keys/privateFiles.js";

/**
 * What a command does with ERRAND_HOME: "read" commands (inspect, collect, journal, the list
 * actions) only look at what is stored; "report" commands (status, provider list) read too, but an
 * unused home reads as empty (homeForAccess); "write" commands may start a new home; "setup"
 * (errand migrate) may start a new PostgreSQL database.
 */
export type HomeAccess = "read" | "report" | "write" | "setup";

/** Where a command reads and writes, with the key to check it; dispose when done. */
export interface HomeView {
  location: StoreLocation;
  key: Buffer;
  dispose(): void;
}

/**
 * The store location and key for a command. For "report" in a home never used (SQLite, neither a
 * database nor a key), an empty throwaway database in a temporary folder with a throwaway key, so
 * the first `errand status` or `errand provider list` after installing answers with zeros instead
 * of a key error, and nothing is written to ERRAND_HOME. Everything else: masterKeyFor's rules.
 */
export function homeForAccess(errandHome: string, access: HomeAccess, location: StoreLocation): HomeView {
  const file = localDatabaseFile(location);
  const unused = access === "report" && file !== null && !existsSync(file) && !existsSync(masterKeyPath(errandHome));
  if (!unused) return { location, key: masterKeyFor(errandHome, access, location), dispose: () => undefined };
  const scratch = mkdtempSync(join(tmpdir(), "errand-unused-home-"));
  const empty = join(scratch, "errand.db");
  return {
    location:
      location.backend === "libsql"
        ? { backend: "libsql", url: `file:${empty}` }
        : { backend: "sqlite", path: empty, busyTimeoutMs: location.backend === "sqlite" ? location.busyTimeoutMs : 1000 },
    key: randomBytes(32),
    dispose: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/**
 * The master key for a command. It is created only for a command that writes, and only where no
 * database can already hold a journal signed with another key: a new key can never read or extend
 * what an older one signed, so a missing key next to an existing errand.db (or any missing key for
 * a read) is refused, naming the file and the fix, instead of quietly starting a journal nobody can
 * verify. A PostgreSQL database is shared by many machines and may well hold a journal, so there
 * the key is created only by `errand migrate` (setup); every other machine gets a copy of it.
 */
export function masterKeyFor(errandHome: string, access: HomeAccess, location?: StoreLocation): Buffer {
  const file = masterKeyPath(errandHome);
  if (location?.backend === "postgres") {
    if (access === "setup") return loadMasterKey(errandHome, { create: true });
    const where = describeStoreLocation(location);
    return loadMasterKey(errandHome, {
      create: false,
      missing: `The master key ${file} is missing. The PostgreSQL database ${where} (ERRAND_DATABASE_URL) is shared, and its journal is signed with the key of the machine that set it up: copy that machine's keys/master.key into ${errandHome}/keys/ (mode 0600). For a new, empty database, run "errand migrate" once to create the key and the schema.`,
    });
  }
  const database = location === undefined ? sqliteStorePath(errandHome) : localDatabaseFile(location);
  if (database === null && location !== undefined) {
    // A libSQL server, like PostgreSQL, may well hold a journal signed with another key: never a new key for it.
    return loadMasterKey(errandHome, {
      create: false,
      missing: `The master key ${file} is missing. The libSQL database ${describeStoreLocation(location)} (ERRAND_DATABASE_URL) is a server, and its journal is signed with the key it was started with: copy that key into ${errandHome}/keys/master.key (mode 0600), or run errand where ERRAND_MASTER_KEY holds it (the Deno and Val Town entries).`,
    });
  }
  const hasDatabase = database !== null && existsSync(database);
  if (access !== "read" && !hasDatabase) return loadMasterKey(errandHome, { create: true });
  const missing = hasDatabase
    ? `The master key ${file} is missing, but ${database} was written with one: errand will not create a new key, which could verify nothing stored there. Put the original key back (from where you keep it apart from backups; errand restore --key-file FILE takes one), or point ERRAND_HOME at the home it belongs to.`
    : `The master key ${file} is missing and ERRAND_HOME (${errandHome}) holds no database: there is nothing to read yet, and errand does not create a key to read with. Check ERRAND_HOME, or submit or run a task first to start a new home.`;
  return loadMasterKey(errandHome, { create: false, missing });
}

/**
 * Loading tightens a loose key file to 600, so the warning must be taken before anything opens the
 * key: the words saying it was exposed (someone may have read it by then), or null. Each entry (the
 * CLI before a command) prints it once.
 */
export function exposedKeyWarning(errandHome: string): string | null {
  const file = masterKeyPath(errandHome);
  const mode = exposedMode(file);
  return mode === null
    ? null
    : `warning: the master key ${file} was mode ${mode.toString(8)} (readable by group or others); errand makes it 600, but consider it exposed ("errand doctor" checks every file mode).`;
}

/** The file a location's database lives in on this machine: SQLite's, or a `file:` libSQL database's; null for a server. */
function localDatabaseFile(location: StoreLocation): string | null {
  if (location.backend === "sqlite") return location.path;
  if (location.backend !== "libsql" || location.client !== undefined || !location.url.startsWith("file:")) return null;
  const path = location.url.startsWith("file://")
    ? fileURLToPath(location.url.split("?")[0] ?? location.url)
    : (location.url.slice("file:".length).split("?")[0] ?? "");
  return path;
}
