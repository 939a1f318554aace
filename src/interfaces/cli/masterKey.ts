import { existsSync } from "node:fs";
import type { StoreLocation } from "../../app/openStores.js";
import { describeStoreLocation } from "../../app/openStores.js";
import { loadMasterKey, masterKeyPath } from "../../keys/loadKey.js";
import { sqliteStorePath } from "../../store/sqlite/openSqliteStore.js";

/**
 * What a command does with ERRAND_HOME: "read" commands (inspect, collect, status, journal, the list
 * actions) only look at what is stored; "write" commands may start a new home; "setup" (errand
 * migrate) may start a new PostgreSQL database.
 */
export type HomeAccess = "read" | "write" | "setup";

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
  const database = location?.backend === "sqlite" ? location.path : sqliteStorePath(errandHome);
  const hasDatabase = existsSync(database);
  if (access !== "read" && !hasDatabase) return loadMasterKey(errandHome, { create: true });
  const missing = hasDatabase
    ? `The master key ${file} is missing, but ${database} was written with one: errand will not create a new key, which could verify nothing stored there. Put the original key back (from where you keep it apart from backups; errand restore --key-file FILE takes one), or point ERRAND_HOME at the home it belongs to.`
    : `The master key ${file} is missing and ERRAND_HOME (${errandHome}) holds no database: there is nothing to read yet, and errand does not create a key to read with. Check ERRAND_HOME, or submit or run a task first to start a new home.`;
  return loadMasterKey(errandHome, { create: false, missing });
}
