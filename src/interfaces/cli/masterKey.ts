import { existsSync } from "node:fs";
import { loadMasterKey, masterKeyPath } from "../../keys/loadKey.js";
import { sqliteStorePath } from "../../store/sqlite/openSqliteStore.js";

/**
 * What a command does with ERRAND_HOME: "read" commands (inspect, collect, status, journal, the list
 * actions) only look at what is stored; "write" commands may start a new home.
 */
export type HomeAccess = "read" | "write";

/**
 * The master key for a command. It is created only for a command that writes, and only in a home
 * that has no database yet: a new key can never read or extend what an older one signed, so a
 * missing key next to an existing errand.db (or any missing key for a read) is refused, naming the
 * file and the fix, instead of quietly starting a journal nobody can verify.
 */
export function masterKeyFor(errandHome: string, access: HomeAccess): Buffer {
  const file = masterKeyPath(errandHome);
  const database = sqliteStorePath(errandHome);
  const hasDatabase = existsSync(database);
  if (access === "write" && !hasDatabase) return loadMasterKey(errandHome, { create: true });
  const missing = hasDatabase
    ? `The master key ${file} is missing, but ${database} was written with one: errand will not create a new key, which could verify nothing stored there. Put the original key back (from where you keep it apart from backups; errand restore --key-file FILE takes one), or point ERRAND_HOME at the home it belongs to.`
    : `The master key ${file} is missing and ERRAND_HOME (${errandHome}) holds no database: there is nothing to read yet, and errand does not create a key to read with. Check ERRAND_HOME, or submit or run a task first to start a new home.`;
  return loadMasterKey(errandHome, { create: false, missing });
}
